import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENT, MGMT, type Reply, type RequestOptions, type TestClient } from '../helpers/client.js';
import { expectConforms } from '../helpers/conform.js';
import type { SuiteContext } from './suite.js';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A name no other test (or earlier run against the same store) has used. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}

export function expectError(reply: Reply, status: number, code: string): Reply {
  expect(reply.status, reply.text.slice(0, 300)).toBe(status);
  expect(reply.body.error.code, reply.text.slice(0, 300)).toBe(code);
  expect(reply.body.meta).toEqual({ apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' });
  return reply;
}

export function expectFieldError(reply: Reply, status: number, field: string, reason?: string | RegExp): Reply {
  expectError(reply, status, 'COULD_NOT_VALIDATE');
  expect(reply.body.error.cause.field).toBe(field);
  if (reason !== undefined) expect(reply.body.error.cause.reason).toMatch(reason);
  return reply;
}

export function expectNotFound(reply: Reply, entity: string, id: string): void {
  expectError(reply, 404, 'NOT_FOUND');
  expect(reply.body.error.cause).toEqual({ code: 'UNHANDLED', message: `${entity} with id ${id} not found` });
}

let ipCounter = 0;
/** A distinct documentation-range address per login, so the failed-attempt throttle never couples tests. */
export function freshIp(): string {
  ipCounter++;
  return `198.19.${Math.floor(ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`;
}

/** Management calls as the default admin (logged in once through the API). */
export interface AdminApi {
  token(): string;
  call(path: string, options?: RequestOptions): Promise<Reply>;
  createIdentity(body?: Record<string, unknown>): Promise<string>;
  /** An identity with a password authenticator, created through the API. */
  createUser(options?: { authPolicyId?: string; isAdmin?: boolean }): Promise<{ identityId: string; authenticatorId: string; username: string; password: string }>;
  login(username: string, password: string, api?: string): Promise<Reply>;
}

export function adminApi(client: () => TestClient): AdminApi {
  let token = '';
  beforeAll(async () => {
    token = await client().login();
  });
  const call = (path: string, options: RequestOptions = {}) => client().request(`${MGMT}${path}`, { token, ...options });
  const api: AdminApi = {
    token: () => token,
    call,
    async createIdentity(body = {}) {
      const reply = expectConforms(await call('/identities', { body: { name: uniqueName('identity'), isAdmin: false, type: 'User', ...body } }), 'createIdentity');
      return reply.body.data.id as string;
    },
    async createUser(options = {}) {
      const identityId = await api.createIdentity(options);
      const username = uniqueName('user');
      const password = 'first-Passw0rd!';
      const reply = expectConforms(await call('/authenticators', { body: { method: 'updb', identityId, username, password } }), 'createAuthenticator');
      return { identityId, authenticatorId: reply.body.data.id, username, password };
    },
    login: (username, password, base = CLIENT) =>
      client().request(`${base}/authenticate?method=password`, { body: { username, password }, headers: { 'cf-connecting-ip': freshIp() } }),
  };
  return api;
}

/** Management identities, identity types and role attributes through the API as the admin: Node and workerd. */
export default function identitiesSuite({ client }: SuiteContext): void {
  const admin = adminApi(client);
  const call = admin.call;

  describe('identities: create and detail', () => {
    it('creates an identity (type always Default) and details it in the full identityDetail shape', async () => {
      const name = uniqueName('full');
      const created = expectConforms(
        await call('/identities', {
          body: {
            name,
            isAdmin: false,
            type: 'Router',
            roleAttributes: ['b', 'a', 'b'],
            tags: { s: 'x', n: 1.5, b: true, z: null },
            appData: { team: 'blue' },
            externalId: `ext-${name}`,
            defaultHostingCost: 7,
            defaultHostingPrecedence: 'required',
            // Makes an ott enrollment (test/shared/enrollments.suite.ts checks it).
            enrollment: { ott: true },
          },
        }),
        'createIdentity',
      );
      expect(created.status).toBe(201);
      const id = created.body.data.id;
      expect(created.body).toEqual({ data: { id, _links: { self: { href: `./identities/${id}` } } }, meta: {} });

      const detail = expectConforms(await call(`/identities/${id}`), 'detailIdentity');
      const d = detail.body.data;
      expect(detail.body.meta).toEqual({});
      expect(d).toMatchObject({
        id,
        name,
        typeId: 'Default',
        type: { id: 'Default', name: 'Default', entity: 'identity-types', _links: { self: { href: './identity-types/Default' } } },
        isAdmin: false,
        isDefaultAdmin: false,
        roleAttributes: ['a', 'b'],
        tags: { s: 'x', n: 1.5, b: true, z: null },
        appData: { team: 'blue' },
        externalId: `ext-${name}`,
        defaultHostingCost: 7,
        defaultHostingPrecedence: 'required',
        serviceHostingCosts: {},
        serviceHostingPrecedences: {},
        authPolicyId: 'default',
        authPolicy: { id: 'default', name: 'Default', entity: 'auth-policies' },
        authenticators: {},
        enrollment: {},
        hasApiSession: false,
        hasEdgeRouterConnection: false,
        edgeRouterConnectionStatus: 'offline',
        isMfaEnabled: false,
        disabled: false,
        disabledAt: null,
        disabledUntil: null,
      });
      // Never logged in: every field of both is omitempty in v1.6.2, so both are empty objects.
      expect(d.envInfo).toEqual({});
      expect(d.sdkInfo).toEqual({});
      expect(d.createdAt).toMatch(ISO_MS);
      expect(d.updatedAt).toBe(d.createdAt);
      expect(d._links.self.href).toBe(`./identities/${id}`);
      expect(d._links.authenticators.href).toBe(`./identities/${id}/authenticators`);
      expect(d._links['auth-policies'].href).toBe('./auth-policies/default');
      expect(Object.keys(d._links).sort()).toEqual(
        ['auth-policies', 'authenticators', 'edge-router-policies', 'edge-routers', 'enrollments', 'failed-service-requests', 'posture-data', 'self', 'service-configs', 'service-policies', 'services'].sort(),
      );
    });

    it('shows the authenticator summary and hasApiSession once the identity has logged in', async () => {
      const user = await admin.createUser();
      const before = expectConforms(await call(`/identities/${user.identityId}`), 'detailIdentity').body.data;
      expect(before.authenticators).toEqual({ updb: { id: user.authenticatorId, username: user.username } });
      expect(before.hasApiSession).toBe(false);
      expect((await admin.login(user.username, user.password)).status).toBe(200);
      const after = expectConforms(await call(`/identities/${user.identityId}`), 'detailIdentity').body.data;
      expect(after.hasApiSession).toBe(true);
    });

    it('answers 404 NOT_FOUND with the entity cause for an unknown id on every operation', async () => {
      const id = 'no-such-identity';
      expectNotFound(await call(`/identities/${id}`), 'identity', id);
      expectNotFound(await call(`/identities/${id}`, { method: 'PUT', body: { name: 'x', isAdmin: false, type: 'User' } }), 'identity', id);
      expectNotFound(await call(`/identities/${id}`, { method: 'PATCH', body: { name: 'x' } }), 'identity', id);
      expectNotFound(await call(`/identities/${id}`, { method: 'DELETE' }), 'identity', id);
      expectNotFound(await call(`/identities/${id}/disable`, { body: { durationMinutes: 1 } }), 'identity', id);
      expectNotFound(await call(`/identities/${id}/enable`, { method: 'POST' }), 'identity', id);
    });

    it('refuses an unknown auth policy with 404; a blank one means the default policy', async () => {
      const missing = await call('/identities', { body: { name: uniqueName('p'), isAdmin: false, type: 'User', authPolicyId: 'no-such-policy' } });
      expectNotFound(missing, 'authPolicy', 'no-such-policy');
      const id = await admin.createIdentity({ authPolicyId: '  ' });
      expect((await call(`/identities/${id}`)).body.data.authPolicyId).toBe('default');
      expectNotFound(await call(`/identities/${id}`, { method: 'PATCH', body: { authPolicyId: 'nope' } }), 'authPolicy', 'nope');
    });

    it('refuses hosting maps naming services that do not exist (404)', async () => {
      const reply = await call('/identities', { body: { name: uniqueName('h'), isAdmin: false, type: 'User', serviceHostingCosts: { 'no-such-service': 3 } } });
      expectNotFound(reply, 'service', 'no-such-service');
    });
  });

  describe('identities: names, tags and role attributes', () => {
    it('requires a non-empty name and keeps names unique (case-sensitive) on create, PUT and PATCH', async () => {
      const empty = await call('/identities', { body: { name: '', isAdmin: false, type: 'User' } });
      expectFieldError(empty, 400, 'name', 'name is required');
      expect(empty.body.error.cause.value).toBe('');

      const name = uniqueName('Dup');
      const id = await admin.createIdentity({ name });
      const dup = await call('/identities', { body: { name, isAdmin: false, type: 'User' } });
      expectFieldError(dup, 400, 'name', 'name must be unique');
      expect(dup.body.error.cause.value).toBe(name);
      // Uniqueness is bytewise: another case is another name.
      await admin.createIdentity({ name: name.toLowerCase() });

      const other = await admin.createIdentity();
      expectFieldError(await call(`/identities/${other}`, { method: 'PATCH', body: { name } }), 400, 'name', 'name must be unique');
      expectFieldError(await call(`/identities/${other}`, { method: 'PUT', body: { name, isAdmin: false, type: 'User' } }), 400, 'name', 'name must be unique');
      expectFieldError(await call(`/identities/${other}`, { method: 'PATCH', body: { name: '' } }), 400, 'name', 'name is required');
      // Its own name is not a conflict.
      expectConforms(await call(`/identities/${id}`, { method: 'PATCH', body: { name } }), 'patchIdentity');
    });

    it('keeps externalId unique when set; blank means none', async () => {
      const ext = uniqueName('ext');
      await admin.createIdentity({ externalId: ext });
      expectFieldError(await call('/identities', { body: { name: uniqueName('e'), isAdmin: false, type: 'User', externalId: ext } }), 400, 'externalId', 'externalId must be unique');
      const a = await admin.createIdentity({ externalId: ' ' });
      const b = await admin.createIdentity({ externalId: '' });
      for (const id of [a, b]) expect((await call(`/identities/${id}`)).body.data.externalId).toBeNull();
    });

    it('accepts flat tags (null, string, boolean, number) and refuses nested values in tags and appData', async () => {
      const base = { isAdmin: false, type: 'User' };
      const nested = await call('/identities', { body: { ...base, name: uniqueName('t'), tags: { a: { b: 1 } } } });
      expectFieldError(nested, 400, 'tags', /nested maps/);
      expectFieldError(await call('/identities', { body: { ...base, name: uniqueName('t'), tags: { a: [1, 2] } } }), 400, 'tags', /nested lists/);
      expectFieldError(await call('/identities', { body: { ...base, name: uniqueName('t'), appData: { a: { b: 1 } } } }), 400, 'appData');
      const id = await admin.createIdentity();
      expectFieldError(await call(`/identities/${id}`, { method: 'PATCH', body: { tags: { x: { y: 'z' } } } }), 400, 'tags');
      expectFieldError(await call(`/identities/${id}`, { method: 'PUT', body: { ...base, name: uniqueName('t'), tags: { x: [] } } }), 400, 'tags');
    });

    it('refuses role attributes starting with # or @ and stores them as a sorted set', async () => {
      const base = { isAdmin: false, type: 'User' };
      const hash = await call('/identities', { body: { ...base, name: uniqueName('r'), roleAttributes: ['ok', '#bad'] } });
      expectFieldError(hash, 400, 'roleAttributes', 'role attributes may not be prefixed with #');
      expect(hash.body.error.cause.value).toBe('#bad');
      expectFieldError(await call('/identities', { body: { ...base, name: uniqueName('r'), roleAttributes: ['@x'] } }), 400, 'roleAttributes', 'role attributes may not be prefixed with @');
      const id = await admin.createIdentity({ roleAttributes: ['zeta', 'Alpha', 'alpha', 'zeta', 'beta'] });
      expect((await call(`/identities/${id}`)).body.data.roleAttributes).toEqual(['Alpha', 'alpha', 'beta', 'zeta']);
    });
  });

  describe('identities: PUT versus PATCH', () => {
    const full = () => ({
      name: uniqueName('pp'),
      isAdmin: false,
      type: 'User',
      roleAttributes: ['one', 'two'],
      tags: { keep: 'me' },
      appData: { app: 1 },
      externalId: uniqueName('x'),
      defaultHostingCost: 12,
      defaultHostingPrecedence: 'failed',
    });

    it('PATCH writes only present, non-null fields; maps are replaced whole; {} and null leave them alone', async () => {
      const body = full();
      const id = await admin.createIdentity(body);
      const before = (await call(`/identities/${id}`)).body.data;
      const newName = uniqueName('patched');
      expectConforms(await call(`/identities/${id}`, { method: 'PATCH', body: { name: newName, tags: {}, appData: null, roleAttributes: null, externalId: null, serviceHostingCosts: {} } }), 'patchIdentity');
      const a = (await call(`/identities/${id}`)).body.data;
      expect(a).toMatchObject({ name: newName, tags: { keep: 'me' }, appData: { app: 1 }, roleAttributes: ['one', 'two'], externalId: body.externalId, defaultHostingCost: 12, defaultHostingPrecedence: 'failed', isAdmin: false });
      expect(Date.parse(a.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
      expect(a.createdAt).toBe(before.createdAt);

      // A map with keys replaces the whole map (no merge); an empty list clears the set.
      expectConforms(await call(`/identities/${id}`, { method: 'PATCH', body: { tags: { other: true }, roleAttributes: [], isAdmin: true } }), 'patchIdentity');
      const b = (await call(`/identities/${id}`)).body.data;
      expect(b.tags).toEqual({ other: true });
      expect(b.roleAttributes).toBeNull();
      expect(b.isAdmin).toBe(true);
      expect(b.appData).toEqual({ app: 1 });
    });

    it('PUT writes every field: omitted ones go back to their zero values', async () => {
      const id = await admin.createIdentity(full());
      const name = uniqueName('put');
      expectConforms(await call(`/identities/${id}`, { method: 'PUT', body: { name, isAdmin: true, type: 'Device' } }), 'updateIdentity');
      const d = expectConforms(await call(`/identities/${id}`), 'detailIdentity').body.data;
      expect(d).toMatchObject({
        name,
        isAdmin: true,
        typeId: 'Default',
        roleAttributes: null,
        tags: {},
        appData: {},
        externalId: null,
        defaultHostingCost: 0,
        defaultHostingPrecedence: 'default',
        authPolicyId: 'default',
        serviceHostingCosts: {},
        serviceHostingPrecedences: {},
      });
    });

    it('maps User, Device and Service to Default and refuses the Router type on update', async () => {
      const id = await admin.createIdentity();
      expectFieldError(await call(`/identities/${id}`, { method: 'PATCH', body: { type: 'Router' } }), 400, 'type', 'may not change type to router');
      expectFieldError(await call(`/identities/${id}`, { method: 'PUT', body: { name: uniqueName('r'), isAdmin: false, type: 'Router' } }), 400, 'type');
      expectConforms(await call(`/identities/${id}`, { method: 'PATCH', body: { type: 'Service' } }), 'patchIdentity');
      expect((await call(`/identities/${id}`)).body.data.typeId).toBe('Default');
    });

    it('validates bodies against the specification', async () => {
      expectFieldError(await call('/identities', { body: { name: uniqueName('v'), type: 'User' } }), 400, 'isAdmin');
      expectFieldError(await call('/identities', { body: { name: uniqueName('v'), isAdmin: false, type: 'Robot' } }), 400, 'type');
      const id = await admin.createIdentity();
      expectFieldError(await call(`/identities/${id}`, { method: 'PATCH', body: { defaultHostingCost: 70000 } }), 400, 'defaultHostingCost');
      expectError(await call(`/identities/${id}`, { method: 'PATCH', raw: '{"name":', headers: { 'content-type': 'application/json' } }), 400, 'COULD_NOT_PARSE_BODY');
    });
  });

  describe('identities: delete, disable, enable', () => {
    it('the default admin cannot be deleted', async () => {
      const list = expectConforms(await call(`/identities?filter=${encodeURIComponent('isDefaultAdmin = true')}`), 'listIdentities');
      expect(list.body.data).toHaveLength(1);
      const id = list.body.data[0].id;
      const reply = expectError(await call(`/identities/${id}`, { method: 'DELETE' }), 400, 'ENTITY_CAN_NOT_BE_DELETED');
      expect(reply.body.error.cause.message).toContain('default admin');
      expect((await call(`/identities/${id}`)).status).toBe(200);
    });

    it('deleting an identity deletes its authenticators and API sessions: its token stops working', async () => {
      const user = await admin.createUser();
      const login = await admin.login(user.username, user.password);
      expect(login.status).toBe(200);
      const token = login.body.data.token;
      expect((await client().get(`${CLIENT}/current-identity`, token)).status).toBe(200);

      const deleted = expectConforms(await call(`/identities/${user.identityId}`, { method: 'DELETE' }), 'deleteIdentity');
      expect(deleted.body).toEqual({ data: {}, meta: {} });
      expectError(await client().get(`${CLIENT}/current-identity`, token), 401, 'UNAUTHORIZED');
      expectNotFound(await call(`/identities/${user.identityId}`), 'identity', user.identityId);
      expectNotFound(await call(`/authenticators/${user.authenticatorId}`), 'authenticator', user.authenticatorId);
      expect((await admin.login(user.username, user.password)).status).toBe(401);
      // The username is free again.
      const again = await admin.createIdentity();
      expectConforms(await call('/authenticators', { body: { method: 'updb', identityId: again, username: user.username, password: 'another-pass' } }), 'createAuthenticator');
    });

    it('disables indefinitely (ending its sessions) and enables again', async () => {
      const user = await admin.createUser();
      const token = (await admin.login(user.username, user.password)).body.data.token;
      const disabled = expectConforms(await call(`/identities/${user.identityId}/disable`, { body: { durationMinutes: 0 } }), 'disableIdentity');
      expect(disabled.body).toEqual({ data: {}, meta: {} });
      expectError(await client().get(`${CLIENT}/current-identity`, token), 401, 'UNAUTHORIZED');
      const d = expectConforms(await call(`/identities/${user.identityId}`), 'detailIdentity').body.data;
      expect(d.disabled).toBe(true);
      expect(d.disabledAt).toMatch(ISO_MS);
      expect(d.disabledUntil).toBeNull();
      expectError(await admin.login(user.username, user.password), 401, 'INVALID_AUTH');

      expect(expectConforms(await call(`/identities/${user.identityId}/enable`, { method: 'POST' }), 'enableIdentity').body).toEqual({ data: {}, meta: {} });
      const e = (await call(`/identities/${user.identityId}`)).body.data;
      expect(e).toMatchObject({ disabled: false, disabledAt: null, disabledUntil: null });
      expect((await admin.login(user.username, user.password)).status).toBe(200);
    });

    it('disables for a duration', async () => {
      const id = await admin.createIdentity();
      expectConforms(await call(`/identities/${id}/disable`, { body: { durationMinutes: 90 } }), 'disableIdentity');
      const d = (await call(`/identities/${id}`)).body.data;
      expect(d.disabled).toBe(true);
      expect(Date.parse(d.disabledUntil) - Date.parse(d.disabledAt)).toBe(90 * 60_000);
      expectFieldError(await call(`/identities/${id}/disable`, { body: {} }), 400, 'durationMinutes');
    });

    it('enable forgets the failed password attempts counted towards the lockout', async () => {
      const policy = expectConforms(
        await call('/auth-policies', {
          body: {
            name: uniqueName('lock'),
            primary: {
              cert: { allowed: true, allowExpiredCerts: true },
              updb: { allowed: true, minPasswordLength: 5, requireSpecialChar: false, requireNumberChar: false, requireMixedCase: false, maxAttempts: 2, lockoutDurationMinutes: 0 },
              extJwt: { allowed: true, allowedSigners: [] },
            },
            secondary: { requireTotp: false },
          },
        }),
        'createAuthPolicy',
      ).body.data.id;
      const user = await admin.createUser({ authPolicyId: policy });
      for (let i = 0; i < 2; i++) expect((await admin.login(user.username, 'wrong-password')).status).toBe(401);
      // Two failures are counted; an admin enable clears them even though the identity is not disabled.
      expectConforms(await call(`/identities/${user.identityId}/enable`, { method: 'POST' }), 'enableIdentity');
      for (let i = 0; i < 2; i++) expect((await admin.login(user.username, 'wrong-password')).status).toBe(401);
      // Without the reset this would be the fifth failure and the identity locked.
      expect((await admin.login(user.username, user.password)).status).toBe(200);
      expect((await call(`/identities/${user.identityId}`)).body.data.disabled).toBe(false);
    });
  });

  describe('identities: lists', () => {
    it('filters, sorts and pages (filter limit wins; bytewise order; filterableFields)', async () => {
      const p = uniqueName('lst').replace('-', '');
      for (const suffix of ['c', 'a', 'B', 'd']) await admin.createIdentity({ name: `${p}-${suffix}`, roleAttributes: suffix === 'a' ? ['pick'] : [] });
      const filter = encodeURIComponent(`name icontains "${p.toUpperCase()}" sort by name limit 2`);
      const page = expectConforms(await call(`/identities?filter=${filter}`), 'listIdentities');
      expect(page.body.data.map((i: { name: string }) => i.name)).toEqual([`${p}-B`, `${p}-a`]);
      expect(page.body.meta.pagination).toEqual({ limit: 2, offset: 0, totalCount: 4 });
      expect(page.body.meta.filterableFields).toEqual(expect.arrayContaining(['id', 'createdAt', 'updatedAt', 'isSystem', 'tags', 'name', 'roleAttributes', 'externalId', 'type', 'authPolicyId', 'isAdmin', 'isDefaultAdmin']));

      const second = expectConforms(await call(`/identities?filter=${encodeURIComponent(`name contains "${p}"`)}&sort=${encodeURIComponent('name desc')}&limit=2&offset=2`), 'listIdentities');
      expect(second.body.data.map((i: { name: string }) => i.name)).toEqual([`${p}-a`, `${p}-B`]);
      expect(second.body.meta.pagination).toEqual({ limit: 2, offset: 2, totalCount: 4 });

      const typed = await call(`/identities?filter=${encodeURIComponent(`name contains "${p}" and type = "Default" and isAdmin = false and anyOf(roleAttributes) = "pick"`)}`);
      expect(typed.body.data.map((i: { name: string }) => i.name)).toEqual([`${p}-a`]);

      const none = expectConforms(await call(`/identities?filter=${encodeURIComponent('name = "no such name at all"')}`), 'listIdentities');
      expect(none.body).toEqual({ data: [], meta: { pagination: { limit: 10, offset: 0, totalCount: 0 }, filterableFields: page.body.meta.filterableFields } });
    });

    it('answers 400 for bad filters, sorts and paging', async () => {
      expectError(await call(`/identities?filter=${encodeURIComponent('nmae = "x"')}`), 400, 'INVALID_FILTER');
      expectError(await call(`/identities?sort=nosuchfield`), 400, 'INVALID_SORT_IDENTIFIER');
      expectFieldError(await call(`/identities?limit=abc`), 400, 'limit');
    });

    it('pre-selects with roleFilter (AllOf by default, AnyOf) and ORs in @ids', async () => {
      const tag = uniqueName('rf').replace('-', '');
      const both = await admin.createIdentity({ roleAttributes: [`${tag}x`, `${tag}y`] });
      const onlyX = await admin.createIdentity({ roleAttributes: [`${tag}x`] });
      const plain = await admin.createIdentity();
      const ids = async (qs: string) => ((await call(`/identities?${qs}`)).body.data as { id: string }[]).map((i) => i.id).sort();
      const rf = (v: string) => `roleFilter=${encodeURIComponent(v)}`;
      expect(await ids(`${rf(`#${tag}x`)}&${rf(`#${tag}y`)}`)).toEqual([both]);
      expect(await ids(`${rf(`#${tag}x`)}&${rf(`#${tag}y`)}&roleSemantic=anyOf`)).toEqual([both, onlyX].sort());
      expect(await ids(`${rf(`#${tag}y`)}&${rf(`@${plain}`)}`)).toEqual([both, plain].sort());
      expectConforms(await call(`/identities?${rf(`#${tag}x`)}`), 'listIdentities');
      expectFieldError(await call(`/identities?${rf(`#${tag}x`)}&roleSemantic=SomeOf`), 400, 'semantic');
    });

    it('lists distinct role attributes, filtered on id only', async () => {
      const tag = uniqueName('ra').replace('-', '');
      await admin.createIdentity({ roleAttributes: [`${tag}-b`, `${tag}-a`] });
      await admin.createIdentity({ roleAttributes: [`${tag}-a`, `${tag}-c`] });
      const reply = expectConforms(await call(`/identity-role-attributes?filter=${encodeURIComponent(`id contains "${tag}"`)}`), 'listIdentityRoleAttributes');
      expect(reply.body.data).toEqual([`${tag}-a`, `${tag}-b`, `${tag}-c`]);
      expect(reply.body.meta.pagination.totalCount).toBe(3);
      expect(reply.body.meta.filterableFields).toEqual(['id']);
      const desc = await call(`/identity-role-attributes?filter=${encodeURIComponent(`id contains "${tag}" sort by id desc limit 2`)}`);
      expect(desc.body.data).toEqual([`${tag}-c`, `${tag}-b`]);
      expect(desc.body.meta.pagination).toMatchObject({ limit: 2, totalCount: 3 });
      expectError(await call(`/identity-role-attributes?filter=${encodeURIComponent('name = "x"')}`), 400, 'INVALID_FILTER');
    });

    it("lists an identity's authenticators; an unknown identity has none", async () => {
      const user = await admin.createUser();
      const list = expectConforms(await call(`/identities/${user.identityId}/authenticators`), 'getIdentityAuthenticators');
      expect(list.body.data.map((a: { id: string }) => a.id)).toEqual([user.authenticatorId]);
      expect(list.body.meta.pagination).toEqual({ limit: 10, offset: 0, totalCount: 1 });
      const none = expectConforms(await call('/identities/no-such-identity/authenticators'), 'getIdentityAuthenticators');
      expect(none.body.data).toEqual([]);
      const bad = expectError(await call(`/identities/${user.identityId}/authenticators?limit=abc`), 400, 'INVALID_PAGINATION');
      expect(bad.body.error.cause).toEqual({ field: 'limit', reason: 'could not parse limit, value is not an integer', value: 'abc' });
    });

    it('is for admins only', async () => {
      const user = await admin.createUser();
      const token = (await admin.login(user.username, user.password, MGMT)).body.data.token;
      expectError(await client().get(`${MGMT}/identities`, token), 401, 'UNAUTHORIZED');
      expectError(await client().request(`${MGMT}/identities/${user.identityId}`, { method: 'DELETE', token }), 401, 'UNAUTHORIZED');
    });
  });

  describe('identity types', () => {
    it('lists and details the built-in types', async () => {
      const list = expectConforms(await call(`/identity-types?sort=name`), 'listIdentityTypes');
      expect(list.body.data.map((t: { id: string; name: string }) => [t.id, t.name])).toEqual([
        ['Default', 'Default'],
        ['Router', 'Router'],
      ]);
      expect(list.body.meta.filterableFields).toEqual(expect.arrayContaining(['id', 'name', 'tags']));
      const detail = expectConforms(await call('/identity-types/Router'), 'detailIdentityType');
      expect(detail.body.data).toMatchObject({ id: 'Router', name: 'Router', tags: {}, _links: { self: { href: './identity-types/Router' } } });
      expectNotFound(await call('/identity-types/User'), 'identityType', 'User');
    });
  });
}

/** Passwords this suite sends: they must never come back in a reply or a log line. */
export const secrets = ['first-Passw0rd!', 'pass-word-1', 'brand-new-pass', 'patched-pass'];
