import { describe, expect, it } from 'vitest';
import { CLIENT } from '../helpers/client.js';
import { expectConforms } from '../helpers/conform.js';
import { adminApi, expectError, expectFieldError, expectNotFound, uniqueName } from './identities.suite.js';
import type { SuiteContext } from './suite.js';

const SECRET_KEYS = /password|hash|salt/i;

function policyBody(overrides: { name?: string; updb?: Record<string, unknown>; extJwt?: Record<string, unknown>; secondary?: Record<string, unknown>; tags?: Record<string, unknown> } = {}) {
  return {
    name: overrides.name ?? uniqueName('policy'),
    primary: {
      cert: { allowed: true, allowExpiredCerts: false },
      updb: { allowed: true, minPasswordLength: 8, requireSpecialChar: true, requireNumberChar: false, requireMixedCase: true, maxAttempts: 3, lockoutDurationMinutes: 10, ...overrides.updb },
      extJwt: { allowed: false, allowedSigners: [], ...overrides.extJwt },
    },
    secondary: { requireTotp: false, ...overrides.secondary },
    ...(overrides.tags ? { tags: overrides.tags } : {}),
  };
}

/** Management authenticators (updb) and auth policies through the API as the admin: Node and workerd. */
export default function identitiesAuthSuite({ client }: SuiteContext): void {
  const admin = adminApi(client);
  const call = admin.call;

  describe('authenticators', () => {
    it('creates an updb authenticator the identity logs in with; no response shows a password or hash', async () => {
      const identityId = await admin.createIdentity();
      const username = uniqueName('login');
      const created = expectConforms(await call('/authenticators', { body: { method: 'updb', identityId, username, password: 'pass-word-1', tags: { k: 'v' } } }), 'createAuthenticator');
      expect(created.status).toBe(201);
      const id = created.body.data.id;
      expect(created.body.data._links.self.href).toBe(`./authenticators/${id}`);

      const detail = expectConforms(await call(`/authenticators/${id}`), 'detailAuthenticator');
      expect(detail.body.data).toMatchObject({ id, method: 'updb', username, identityId, tags: { k: 'v' }, identity: { id: identityId, entity: 'identities' } });
      expect(detail.body.data._links).toEqual({ self: { href: `./authenticators/${id}` }, identities: { href: `./identities/${identityId}` } });
      expect(Object.keys(detail.body.data).filter((k) => SECRET_KEYS.test(k))).toEqual([]);
      expect(detail.text).not.toContain('pass-word-1');
      expect(detail.text).not.toContain('pbkdf2');

      const list = expectConforms(await call(`/authenticators?filter=${encodeURIComponent(`identity = "${identityId}"`)}`), 'listAuthenticators');
      expect(list.body.data.map((a: { id: string }) => a.id)).toEqual([id]);
      expect(list.body.meta.filterableFields).toEqual(expect.arrayContaining(['method', 'identity', 'updbUsername']));
      expect(list.body.meta.filterableFields.filter((f: string) => /password|salt/i.test(f))).toEqual([]);
      expectError(await call(`/authenticators?filter=${encodeURIComponent('updbPassword = "x"')}`), 400, 'INVALID_FILTER');

      const login = await admin.login(username, 'pass-word-1');
      expect(login.status).toBe(200);
      expect(login.body.data.authenticatorId).toBe(id);
    });

    it('allows one updb authenticator per identity (409 MAX_AUTHENTICATOR_METHODS_REACHED)', async () => {
      const user = await admin.createUser();
      const second = await call('/authenticators', { body: { method: 'updb', identityId: user.identityId, username: uniqueName('second'), password: 'pass-word-2' } });
      expectError(second, 409, 'MAX_AUTHENTICATOR_METHODS_REACHED');
    });

    it('validates method, identity, username and password on create', async () => {
      const identityId = await admin.createIdentity();
      const body = (extra: Record<string, unknown>) => ({ body: { method: 'updb', identityId, username: uniqueName('v'), password: 'long-enough', ...extra } });
      expectNotFound(await call('/authenticators', body({ identityId: 'no-such-identity' })), 'identity', 'no-such-identity');
      expectFieldError(await call('/authenticators', body({ method: 'magic' })), 400, 'method');
      // A cert authenticator needs exactly one certificate (docs/enrollment.md).
      expectError(await call('/authenticators', body({ method: 'cert', certPem: 'x' })), 400, 'COULD_NOT_PARSE_PEM_BLOCK');
      expectFieldError(await call('/authenticators', body({ username: 'abc' })), 400, 'username', /at least 4/);
      expectFieldError(await call('/authenticators', body({ username: 'u'.repeat(101) })), 400, 'username', /at most 100/);
      expectFieldError(await call('/authenticators', body({ username: undefined })), 400, 'username');
      const short = expectFieldError(await call('/authenticators', body({ password: 'abcd' })), 400, 'password', /at least 5/);
      // A password is never echoed back, not even an invalid one.
      expect(short.text).not.toContain('abcd"');
      expectFieldError(await call('/authenticators', body({ password: 'p'.repeat(101) })), 400, 'password', /at most 100/);
      expectFieldError(await call('/authenticators', { body: { method: 'updb', username: 'abcdef', password: 'abcdef' } }), 400, 'identityId');
    });

    it('keeps usernames globally unique (400 field username) on create, PUT and PATCH', async () => {
      const a = await admin.createUser();
      const identityId = await admin.createIdentity();
      const dup = await call('/authenticators', { body: { method: 'updb', identityId, username: a.username, password: 'pass-word-3' } });
      expectFieldError(dup, 400, 'username', 'username must be unique');
      expect(dup.body.error.cause.value).toBe(a.username);
      const b = await admin.createUser();
      expectFieldError(await call(`/authenticators/${b.authenticatorId}`, { method: 'PATCH', body: { username: a.username } }), 400, 'username', 'username must be unique');
      expectFieldError(await call(`/authenticators/${b.authenticatorId}`, { method: 'PUT', body: { username: a.username, password: 'pass-word-4' } }), 400, 'username');
    });

    it('PUT replaces username, password and tags; existing sessions survive; the old password stops working', async () => {
      const user = await admin.createUser();
      const token = (await admin.login(user.username, user.password)).body.data.token;
      await call(`/authenticators/${user.authenticatorId}`, { method: 'PATCH', body: { tags: { a: 1 } } });
      const username = uniqueName('renamed');
      expectConforms(await call(`/authenticators/${user.authenticatorId}`, { method: 'PUT', body: { username, password: 'brand-new-pass' } }), 'updateAuthenticator');
      const d = (await call(`/authenticators/${user.authenticatorId}`)).body.data;
      expect(d.username).toBe(username);
      // PUT without tags clears them.
      expect(d.tags).toEqual({});
      expect((await client().get(`${CLIENT}/current-identity`, token)).status).toBe(200);
      expect((await admin.login(user.username, user.password)).status).toBe(401);
      expect((await admin.login(username, user.password)).status).toBe(401);
      expect((await admin.login(username, 'brand-new-pass')).status).toBe(200);
      expect((await call(`/identities/${user.identityId}`)).body.data.authenticators.updb.username).toBe(username);
    });

    it('PATCH changes only what it is given; {} tags are ignored', async () => {
      const user = await admin.createUser();
      expectConforms(await call(`/authenticators/${user.authenticatorId}`, { method: 'PATCH', body: { tags: { keep: true } } }), 'patchAuthenticator');
      expectConforms(await call(`/authenticators/${user.authenticatorId}`, { method: 'PATCH', body: { password: 'patched-pass', tags: {} } }), 'patchAuthenticator');
      const d = (await call(`/authenticators/${user.authenticatorId}`)).body.data;
      expect(d).toMatchObject({ username: user.username, tags: { keep: true } });
      expect((await admin.login(user.username, 'patched-pass')).status).toBe(200);
      expectFieldError(await call(`/authenticators/${user.authenticatorId}`, { method: 'PATCH', body: { password: 'abc' } }), 400, 'password');
    });

    it('deleting an authenticator ends the API sessions created with it', async () => {
      const user = await admin.createUser();
      const token = (await admin.login(user.username, user.password)).body.data.token;
      expect(expectConforms(await call(`/authenticators/${user.authenticatorId}`, { method: 'DELETE' }), 'deleteAuthenticator').body).toEqual({ data: {}, meta: {} });
      expectError(await client().get(`${CLIENT}/current-identity`, token), 401, 'UNAUTHORIZED');
      expect((await call(`/identities/${user.identityId}`)).body.data.authenticators).toEqual({});
      // The identity may get a new one.
      expectConforms(await call('/authenticators', { body: { method: 'updb', identityId: user.identityId, username: uniqueName('again'), password: 'again-pass' } }), 'createAuthenticator');
    });

    it('answers 404 for unknown authenticators', async () => {
      const id = 'no-such-authenticator';
      expectNotFound(await call(`/authenticators/${id}`), 'authenticator', id);
      expectNotFound(await call(`/authenticators/${id}`, { method: 'PUT', body: { username: 'someone', password: 'whatever' } }), 'authenticator', id);
      expectNotFound(await call(`/authenticators/${id}`, { method: 'PATCH', body: {} }), 'authenticator', id);
      expectNotFound(await call(`/authenticators/${id}`, { method: 'DELETE' }), 'authenticator', id);
    });
  });

  describe('auth policies', () => {
    it('creates, details and lists a policy, normalising the updb numbers', async () => {
      const body = policyBody({ updb: { minPasswordLength: 2, maxAttempts: -3, lockoutDurationMinutes: -1 }, tags: { env: 'test' } });
      const created = expectConforms(await call('/auth-policies', { body }), 'createAuthPolicy');
      const id = created.body.data.id;
      expect(id).toMatch(/^[0-9A-Za-z]{22}$/);
      expect(created.body.data._links.self.href).toBe(`./auth-policies/${id}`);
      const d = expectConforms(await call(`/auth-policies/${id}`), 'detailAuthPolicy').body.data;
      expect(d).toMatchObject({
        id,
        name: body.name,
        tags: { env: 'test' },
        primary: {
          cert: { allowed: true, allowExpiredCerts: false },
          updb: { allowed: true, minPasswordLength: 5, requireSpecialChar: true, requireNumberChar: false, requireMixedCase: true, maxAttempts: 0, lockoutDurationMinutes: 0 },
          extJwt: { allowed: false, allowedSigners: [] },
        },
        secondary: { requireTotp: false, requireExtJwtSigner: null },
        _links: { self: { href: `./auth-policies/${id}` } },
      });
      const list = expectConforms(await call(`/auth-policies?filter=${encodeURIComponent(`name = "${body.name}" and primary.updb.requireMixedCase = true`)}`), 'listAuthPolicies');
      expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([id]);
      expect(list.body.meta.filterableFields).toEqual(expect.arrayContaining(['name', 'primary.updb.maxAttempts', 'secondary.requireTotp']));
    });

    it('PATCH writes only the given nested fields; PUT writes them all', async () => {
      const id = expectConforms(await call('/auth-policies', { body: policyBody({ tags: { t: 1 } }) }), 'createAuthPolicy').body.data.id;
      expectConforms(await call(`/auth-policies/${id}`, { method: 'PATCH', body: { primary: { updb: { maxAttempts: 7 }, cert: null }, secondary: { requireTotp: true }, tags: {} } }), 'patchAuthPolicy');
      const p = (await call(`/auth-policies/${id}`)).body.data;
      expect(p.primary.updb).toMatchObject({ maxAttempts: 7, minPasswordLength: 8, lockoutDurationMinutes: 10, requireSpecialChar: true });
      expect(p.primary.cert).toEqual({ allowed: true, allowExpiredCerts: false });
      expect(p.secondary.requireTotp).toBe(true);
      expect(p.tags).toEqual({ t: 1 });
      expectConforms(await call(`/auth-policies/${id}`, { method: 'PATCH', body: { primary: { updb: { minPasswordLength: 1 } } } }), 'patchAuthPolicy');
      expect((await call(`/auth-policies/${id}`)).body.data.primary.updb.minPasswordLength).toBe(5);

      const name = uniqueName('replaced');
      const replacement = policyBody({ name, updb: { maxAttempts: 1, requireSpecialChar: false } });
      expectConforms(await call(`/auth-policies/${id}`, { method: 'PUT', body: replacement }), 'updateAuthPolicy');
      const r = (await call(`/auth-policies/${id}`)).body.data;
      expect(r).toMatchObject({ name, primary: replacement.primary, secondary: { requireTotp: false, requireExtJwtSigner: null }, tags: {} });
      expectFieldError(await call(`/auth-policies/${id}`, { method: 'PUT', body: { name } }), 400, 'primary');
    });

    it('requires unique, non-empty names', async () => {
      const name = uniqueName('pname');
      expectConforms(await call('/auth-policies', { body: policyBody({ name }) }), 'createAuthPolicy');
      expectFieldError(await call('/auth-policies', { body: policyBody({ name }) }), 400, 'name', 'name must be unique');
      expectFieldError(await call('/auth-policies', { body: policyBody({ name: '' }) }), 400, 'name', 'name is required');
      expectFieldError(await call('/auth-policies/default', { method: 'PATCH', body: { name } }), 400, 'name', 'name must be unique');
    });

    it('refuses references to external JWT signers that do not exist (404)', async () => {
      const allowed = await call('/auth-policies', { body: policyBody({ extJwt: { allowedSigners: ['no-such-signer'] } }) });
      expectError(allowed, 404, 'NOT_FOUND');
      expect(allowed.body.error.cause).toMatchObject({ field: 'primary.extJwt.allowedSigners[0]', value: 'no-such-signer' });
      const required = await call('/auth-policies', { body: policyBody({ secondary: { requireExtJwtSigner: 'nope' } }) });
      expectError(required, 404, 'NOT_FOUND');
      expect(required.body.error.cause.field).toBe('secondary.requireExtJwtSigner');
    });

    it('updates and patches the default policy but never deletes it', async () => {
      const before = expectConforms(await call('/auth-policies/default'), 'detailAuthPolicy').body.data;
      expect(before).toMatchObject({ id: 'default', name: 'Default' });
      const marker = uniqueName('m');
      expectConforms(await call('/auth-policies/default', { method: 'PATCH', body: { tags: { marker } } }), 'patchAuthPolicy');
      expect((await call('/auth-policies/default')).body.data.tags).toEqual({ marker });
      // PUT it back as it was.
      expectConforms(await call('/auth-policies/default', { method: 'PUT', body: { name: before.name, primary: before.primary, secondary: before.secondary, tags: before.tags } }), 'updateAuthPolicy');
      expect((await call('/auth-policies/default')).body.data).toMatchObject({ name: before.name, primary: before.primary, tags: before.tags });
      expect((await call('/auth-policies/default', { method: 'DELETE' })).status).toBe(409);
      expect((await call('/auth-policies/default')).status).toBe(200);
    });

    it('refuses to delete a policy still assigned to identities (409), deletes it once unused', async () => {
      const policyName = uniqueName('used');
      const id = expectConforms(await call('/auth-policies', { body: policyBody({ name: policyName }) }), 'createAuthPolicy').body.data.id;
      const identityId = await admin.createIdentity({ authPolicyId: id });
      const detail = expectConforms(await call(`/identities/${identityId}`), 'detailIdentity').body.data;
      expect(detail.authPolicy).toMatchObject({ id, name: policyName, entity: 'auth-policies' });
      expect(detail._links['auth-policies'].href).toBe(`./auth-policies/${id}`);

      const refused = expectError(await call(`/auth-policies/${id}`, { method: 'DELETE' }), 409, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
      expect(refused.body.error.cause).toEqual({ field: 'authPolicyId', reason: `entity type authPolicies referenced by identities: [${identityId}]`, value: `[${identityId}]` });

      expectConforms(await call(`/identities/${identityId}`, { method: 'PATCH', body: { authPolicyId: 'default' } }), 'patchIdentity');
      expect(expectConforms(await call(`/auth-policies/${id}`, { method: 'DELETE' }), 'deleteAuthPolicy').body).toEqual({ data: {}, meta: {} });
      expectNotFound(await call(`/auth-policies/${id}`), 'authPolicy', id);
    });

    it('answers 404 for unknown policies', async () => {
      const id = 'no-such-policy';
      expectNotFound(await call(`/auth-policies/${id}`), 'authPolicy', id);
      expectNotFound(await call(`/auth-policies/${id}`, { method: 'PUT', body: policyBody() }), 'authPolicy', id);
      expectNotFound(await call(`/auth-policies/${id}`, { method: 'PATCH', body: { name: 'x' } }), 'authPolicy', id);
      expectNotFound(await call(`/auth-policies/${id}`, { method: 'DELETE' }), 'authPolicy', id);
    });
  });
}
