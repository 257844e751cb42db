import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { edgeRouters, identities, servicePolicies, services, sessions } from '../../src/db/schema/index.js';
import { CLIENT } from '../helpers/client.js';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ClientOperations, type ManagementOperations } from '../helpers/typed-api.js';
import { storeFixtures, unique } from './auth-fixtures.js';
import { expectError, expectFieldError, expectNotFound, uniqueName } from './identities.suite.js';
import { OidcClient } from './oidc-fixtures.js';
import { matches, prng } from './policy-model.suite.js';
import type { Suite } from './suite.js';

const INTERCEPT = 'g7cIWbcGg';
const HOST = 'NH5p4FpGR';
const PASSWORD = 'client-view-password-1';

/**
 * The client's view (reference model-and-policies §3.3, §4.2–§4.6, §6): the services a caller sees with
 * their permissions, config map and posture queries; service-updates; dial/bind sessions with every
 * check in order, idempotent re-creates, confinement to one's own sessions and removal with what ends them.
 */
const clientViewSuite: Suite = ({ client, db, runtime }) => {
  let adminToken = '';
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => adminToken);
  const asClient = (token: string) => new TypedApi<ClientOperations>(client, 'client', () => token);
  const fixtures = () => storeFixtures(db());
  beforeAll(async () => {
    adminToken = await client().login();
  });

  const id = (reply: { data?: { id?: string | null } | null }) => reply.data!.id!;
  /** A non-admin identity with a password and role attributes set through the API (so its links exist). */
  async function user(roleAttributes: string[] = [], options: { tags?: Record<string, unknown> } = {}) {
    const username = unique('cv');
    const { identityId } = await fixtures().createUser({ username, password: PASSWORD });
    await admin.ok('patchIdentity', { path: { id: identityId }, body: { roleAttributes, ...(options.tags ? { tags: options.tags } : {}) } });
    return { identityId, username, login: (configTypes?: string[]) => loginAs(username, configTypes) };
  }
  async function loginAs(username: string, configTypes?: string[]) {
    const reply = await client().request(`${CLIENT}/authenticate?method=password`, { body: { username, password: PASSWORD, ...(configTypes ? { configTypes } : {}) } });
    expect(reply.status, reply.text).toBe(200);
    return { token: reply.body.data.token as string, apiSessionId: reply.body.data.id as string, api: asClient(reply.body.data.token as string) };
  }
  const service = async (body: Record<string, unknown> = {}) => id(await admin.ok('createService', { body: { name: uniqueName('svc'), encryptionRequired: true, ...body } }));
  const router = async (roleAttributes: string[] = []) => id(await admin.ok('createEdgeRouter', { body: { name: uniqueName('er'), roleAttributes } }));
  const dial = async (identityRoles: string[], serviceRoles: string[], type: 'Dial' | 'Bind' = 'Dial') => id(await admin.ok('createServicePolicy', { body: { name: uniqueName('sp'), type, semantic: 'AnyOf', identityRoles, serviceRoles } }));
  const erp = async (identityRoles: string[], edgeRouterRoles: string[]) => id(await admin.ok('createEdgeRouterPolicy', { body: { name: uniqueName('erp'), semantic: 'AnyOf', identityRoles, edgeRouterRoles } }));
  const serp = async (serviceRoles: string[], edgeRouterRoles: string[]) => id(await admin.ok('createServiceEdgeRouterPolicy', { body: { name: uniqueName('serp'), semantic: 'AnyOf', serviceRoles, edgeRouterRoles } }));

  /** An identity that may dial a service over one shared router: the starting point of the session tests. */
  async function dialable() {
    const u = await user();
    const sid = await service();
    const rid = await router();
    const policyId = await dial([`@${u.identityId}`], [`@${sid}`]);
    await erp([`@${u.identityId}`], [`@${rid}`]);
    await serp([`@${sid}`], [`@${rid}`]);
    return { ...u, sid, rid, policyId, session: await u.login() };
  }

  describe('services', () => {
    const seeds = runtime === 'node' ? [3, 17] : [5];
    for (const seed of seeds) {
      it(`a non-admin sees exactly the services its policies grant, with their permissions (evaluator, seed ${seed})`, async () => {
        const r = prng(seed);
        const run = `cv${seed}-${crypto.randomUUID().slice(0, 6)}`;
        const attrs = [`${run}-a`, `${run}-b`, `${run}-c`];
        const users = await Promise.all(Array.from({ length: 4 }, () => user(r.subset(attrs, 0.5), { tags: { model: run } })));
        const svcIds: string[] = [];
        for (let i = 0; i < 8; i++) svcIds.push(await service({ roleAttributes: r.subset(attrs, 0.5), tags: { model: run } }));
        const policyIds: string[] = [];
        for (let i = 0; i < 5; i++) {
          const pick = (prefix: string, ids: string[]) => [...r.subset(attrs, 0.4).map((a) => `#${a}`), ...(r.next() < 0.4 ? [`@${r.pick(ids)}`] : [])];
          const body = { name: uniqueName('sp'), type: r.pick(['Dial', 'Bind'] as const), semantic: r.pick(['AllOf', 'AnyOf'] as const), identityRoles: pick('i', users.map((u) => u.identityId)), serviceRoles: pick('s', svcIds) };
          policyIds.push(id(await admin.ok('createServicePolicy', { body })));
        }
        const [ids, svcs, sps] = await Promise.all([db().select().from(identities), db().select().from(services), db().select().from(servicePolicies)]);
        const json = (s: string) => JSON.parse(s) as string[];
        let granted = 0;
        let widest = { user: users[0], size: -1 };
        for (const u of users) {
          const i = ids.find((x) => x.id === u.identityId)!;
          const expected = new Map<string, string[]>();
          for (const s of svcs) {
            const perms = (['Bind', 'Dial'] as const).filter((type) => sps.some((p) => p.type === type && matches(json(p.identityRoles), p.semantic, i.id, json(i.roleAttributes)) && matches(json(p.serviceRoles), p.semantic, s.id, json(s.roleAttributes))));
            if (perms.length > 0) expected.set(s.id, perms);
          }
          granted += expected.size;
          if (expected.size > widest.size) widest = { user: u, size: expected.size };
          const { api } = await u.login();
          const listed = expectConforms(await api.call('listServices', { query: { limit: 500 } }), 'listServices', 'client');
          expect(new Map(listed.body.data.map((s) => [s.id, s.permissions]))).toEqual(expected);
          expect(listed.body.meta.pagination!.totalCount).toBe(expected.size);
          // The page SDKs ask for has its own prepared statement; a filter takes the general path: same answer.
          const general = await api.call('listServices', { query: { limit: 500, filter: 'id != "none"' } });
          expect(general.body).toEqual(listed.body);
          const paged = await api.call('listServices', { query: { limit: 2, offset: 1 } });
          expect(paged.body).toEqual((await api.call('listServices', { query: { limit: 2, offset: 1, filter: 'id != "none"' } })).body);
          expect(paged.body.data.map((s) => s.id)).toEqual(listed.body.data.slice(1, 3).map((s) => s.id));
          for (const s of svcIds) {
            const detail = await api.call('detailService', { path: { id: s } });
            if (expected.has(s)) expect(detail.body.data.permissions).toEqual(expected.get(s));
            else expectNotFound(detail, 'service', s);
          }
        }
        expect(granted).toBeGreaterThan(0);
        // Permissions are read one way without posture checks (two probes) and another with them (the
        // granting policies, whose checks apply): both must agree. A check no policy selects flips the way.
        const { api } = await widest.user.login();
        const before = await api.call('listServices', { query: { limit: 500 } });
        expect(before.body.data.length).toBe(widest.size);
        const check = id(await admin.ok('createPostureCheck', { body: { typeId: 'DOMAIN', name: uniqueName('pc'), domains: ['cv.example'], roleAttributes: [`${run}-unused`] } }));
        const during = await api.call('listServices', { query: { limit: 500 } });
        await admin.ok('deletePostureCheck', { path: { id: check } });
        expect(during.body.data.map((s) => [s.id, s.permissions])).toEqual(before.body.data.map((s) => [s.id, s.permissions]));
        expect(during.body.data.flatMap((s) => s.postureQueries!.map((q) => q.policyId)).every((p) => policyIds.includes(p!))).toBe(true);
        for (const p of policyIds) await admin.ok('deleteServicePolicy', { path: { id: p } });
      });
    }

    it('an admin sees every service, with permissions ["Invalid"] where no policy grants it', async () => {
      const sid = await service();
      const api = asClient(await client().login(undefined, undefined, CLIENT));
      const listed = await api.ok('listServices', { query: { filter: `id = "${sid}"` } });
      expect(listed.data.map((s) => [s.id, s.permissions])).toEqual([[sid, ['Invalid']]]);
      expect(listed.data[0].postureQueries).toEqual([{ policyId: 'dummy invalid policy: no posture checks defined', policyType: 'Invalid', isPassing: true, postureQueries: [] }]);
      expect((await api.ok('detailService', { path: { id: sid } })).data.id).toBe(sid);
    });

    it('renders the config map from the login config types, the query override, and identity overrides (§4.3)', async () => {
      const cfg = id(await admin.ok('createConfig', { body: { name: uniqueName('cfg'), configTypeId: INTERCEPT, data: { protocols: ['tcp'], addresses: ['a.ziti'], portRanges: [{ low: 80, high: 80 }] } } }));
      const host = id(await admin.ok('createConfig', { body: { name: uniqueName('cfg'), configTypeId: HOST, data: { protocol: 'tcp', address: 'localhost', port: 80 } } }));
      const own = id(await admin.ok('createConfig', { body: { name: uniqueName('cfg'), configTypeId: INTERCEPT, data: { protocols: ['udp'], addresses: ['b.ziti'], portRanges: [{ low: 53, high: 53 }] } } }));
      const u = await user();
      const sid = await service({ configs: [cfg, host] });
      await dial([`@${u.identityId}`], [`@${sid}`]);
      const { api } = await u.login(['intercept.v1']);
      const detail = await api.ok('detailService', { path: { id: sid } });
      expect(Object.keys(detail.data.config)).toEqual(['intercept.v1']);
      expect(detail.data.config['intercept.v1']).toMatchObject({ protocols: ['tcp'] });
      expect(detail.data.postureQueries).toEqual([{ policyId: 'dummy dial policy: no posture checks defined', policyType: 'Dial', isPassing: true, postureQueries: [] }]);
      const both = await api.ok('listServices', { query: { filter: `id = "${sid}"`, configTypes: ['all'] } });
      expect(Object.keys(both.data[0].config).sort()).toEqual(['host.v1', 'intercept.v1']);
      await admin.ok('associateIdentitysServiceConfigs', { path: { id: u.identityId }, body: [{ serviceId: sid, configId: own }] });
      expect((await api.ok('detailService', { path: { id: sid } })).data.config['intercept.v1']).toMatchObject({ protocols: ['udp'] });
      const none = await (await u.login()).api.ok('detailService', { path: { id: sid } });
      expect(none.data.config).toEqual({});
    });

    it('renders one postureQueries entry per granting policy with its evaluated checks, and the config map, alike on the SDK page, the general path, the detail and the management view (§4.3, §4.4)', async () => {
      const run = `cvpq-${crypto.randomUUID().slice(0, 6)}`;
      const domain = id(await admin.ok('createPostureCheck', { body: { typeId: 'DOMAIN', name: uniqueName('pc'), domains: [`${run}.example`], roleAttributes: [`${run}-domain`] } }));
      const os = id(await admin.ok('createPostureCheck', { body: { typeId: 'OS', name: uniqueName('pc'), operatingSystems: [{ type: 'Linux', versions: ['>=5.0.0'] }], roleAttributes: [`${run}-os`] } }));
      const u = await user([`${run}-who`]);
      const intercept = (n: number) => admin.ok('createConfig', { body: { name: uniqueName('cfg'), configTypeId: INTERCEPT, data: { protocols: ['tcp'], addresses: [`s${n}.${run}.ziti`], portRanges: [{ low: 80 + n, high: 80 + n }] } } });
      const hostCfg = id(await admin.ok('createConfig', { body: { name: uniqueName('cfg'), configTypeId: HOST, data: { protocol: 'tcp', address: 'localhost', port: 8080 } } }));
      const svc = [
        await service({ roleAttributes: [`${run}-x`], configs: [id(await intercept(0))] }),
        await service({ roleAttributes: [`${run}-y`] }),
        await service({ roleAttributes: [`${run}-x`, `${run}-y`], configs: [id(await intercept(2)), hostCfg] }),
        await service({ roleAttributes: [`${run}-y`], configs: [id(await intercept(3))] }),
      ];
      const policy = (type: 'Dial' | 'Bind', serviceRoles: string[], postureCheckRoles: string[]) =>
        admin.ok('createServicePolicy', { body: { name: uniqueName('sp'), type, semantic: 'AnyOf', identityRoles: [`#${run}-who`], serviceRoles, postureCheckRoles } });
      const p1 = id(await policy('Dial', [`#${run}-x`], [`#${run}-domain`]));
      const p2 = id(await policy('Bind', [`#${run}-y`], []));
      const p3 = id(await policy('Dial', [`#${run}-y`], [`#${run}-domain`, `#${run}-os`]));
      const session = await u.login(['all']);
      await session.api.ok('createPostureResponse', { body: { id: domain, typeId: 'DOMAIN', domain: `${run}.example` } as never });

      const page = expectConforms(await session.api.call('listServices', { query: { configTypes: ['all'], limit: 500 } }), 'listServices', 'client').body.data;
      const general = (await session.api.ok('listServices', { query: { configTypes: ['all'], limit: 500, filter: 'id != "none"' } })).data;
      expect(general).toEqual(page);
      expect(page.map((s) => s.id).sort()).toEqual([...svc].sort());
      const byId = new Map(page.map((s) => [s.id, s]));
      const entries = (s: string) => [...byId.get(s)!.postureQueries!].sort((a, b) => a.policyId!.localeCompare(b.policyId!));
      const query = (checkId: string, isPassing: boolean) => expect.objectContaining({ id: checkId, isPassing, _links: { self: { href: `./posture-checks/${checkId}` } } });
      const e1 = { policyId: p1, policyType: 'Dial', isPassing: true, postureQueries: [query(domain, true)] };
      const e2 = { policyId: p2, policyType: 'Bind', isPassing: true, postureQueries: [] };
      const e3 = { policyId: p3, policyType: 'Dial', isPassing: false, postureQueries: expect.arrayContaining([query(domain, true), query(os, false)]) };
      const sorted = (...e: { policyId: string }[]) => e.sort((a, b) => a.policyId.localeCompare(b.policyId));
      expect(entries(svc[0])).toEqual([e1]);
      expect(entries(svc[1])).toEqual(sorted(e2, e3));
      expect(entries(svc[2])).toEqual(sorted(e1, e2, e3));
      expect(entries(svc[3])).toEqual(sorted(e2, e3));
      expect(byId.get(svc[1])!.permissions).toEqual(['Bind', 'Dial']);
      expect(Object.keys(byId.get(svc[2])!.config).sort()).toEqual(['host.v1', 'intercept.v1']);
      expect(byId.get(svc[3])!.config['intercept.v1']).toMatchObject({ addresses: [`s3.${run}.ziti`] });
      expect(byId.get(svc[1])!.config).toEqual({});
      // The detail renders each service as the page does (it takes the API session's config types).
      for (const s of svc) expect((await session.api.ok('detailService', { path: { id: s } })).data).toEqual(byId.get(s));
      // Smaller pages hold the same services, rendered alike.
      const pages = [...(await session.api.ok('listServices', { query: { configTypes: ['all'], limit: 2, offset: 0 } })).data, ...(await session.api.ok('listServices', { query: { configTypes: ['all'], limit: 2, offset: 2 } })).data];
      expect(pages).toEqual(page);
      // The management view of the identity's services: the same services and permissions, the configs as
      // ids, no config map (it takes no config types), and posture evaluated without an API session.
      const managed = (await admin.ok('listIdentityServices', { path: { id: u.identityId }, query: { limit: 500 } as never })).data;
      expect(managed.map((s) => [s.id, s.permissions, s.configs, s.config])).toEqual(page.map((s) => [s.id, s.permissions, s.configs, {}]));
      expect(managed.map((s) => s.postureQueries!.map((q) => q.policyId).sort())).toEqual(page.map((s) => s.postureQueries!.map((q) => q.policyId).sort()));
      for (const p of [p1, p2, p3]) await admin.ok('deleteServicePolicy', { path: { id: p } });
      for (const c of [domain, os]) await admin.ok('deletePostureCheck', { path: { id: c } });
    });

    it('the management list renders as another identity with asIdentity (id or name); an unknown one is 404', async () => {
      const u = await user();
      const sid = await service();
      await dial([`@${u.identityId}`], [`@${sid}`], 'Bind');
      const name = (await admin.ok('detailIdentity', { path: { id: u.identityId } })).data.name;
      for (const as of [u.identityId, name]) {
        const reply = await client().request(`/edge/management/v1/services?asIdentity=${encodeURIComponent(as)}&limit=500`, { token: adminToken });
        expect(reply.status).toBe(200);
        expect(reply.body.data.map((s: { id: string; permissions: string[] }) => [s.id, s.permissions])).toEqual([[sid, ['Bind']]]);
      }
      expectError(await client().request(`/edge/management/v1/services?asIdentity=nobody-${crypto.randomUUID()}`, { token: adminToken }), 404, 'NOT_FOUND');
    });

    it('lists a visible service’s edge routers and terminators; invisible ones are 404', async () => {
      const d = await dialable();
      const routers = expectConforms(await d.session.api.call('listServiceEdgeRouters', { path: { id: d.sid } }), 'listServiceEdgeRouters', 'client');
      expect(routers.body.data.edgeRouters!.map((r) => r.name)).toHaveLength(1);
      expect(routers.body.data.edgeRouters![0]).toMatchObject({ isOnline: false, hostname: '', supportedProtocols: {}, syncStatus: 'SYNC_UNKNOWN' });
      const tid = id(await admin.ok('createTerminator', { body: { service: d.sid, router: d.rid, address: 'tcp:localhost:80', binding: 'transport' } }));
      const terms = expectConforms(await d.session.api.call('listServiceTerminators', { path: { id: d.sid } }), 'listServiceTerminators', 'client');
      expect(terms.body.data.map((t) => [t.id, t.serviceId, t.routerId])).toEqual([[tid, d.sid, d.rid]]);
      const other = await service();
      expectNotFound(await d.session.api.call('listServiceEdgeRouters', { path: { id: other } }), 'service', other);
      expectNotFound(await d.session.api.call('listServiceTerminators', { path: { id: other } }), 'service', other);
      expectError(await d.session.api.call('listServiceEdgeRouters', { path: { id: d.sid }, headers: { 'session-token': crypto.randomUUID() } }), 401, 'UNAUTHORIZED');
      const created = await d.session.api.ok('createSession', { body: { serviceId: d.sid } });
      expect((await d.session.api.ok('listServiceEdgeRouters', { path: { id: d.sid }, headers: { 'session-token': created.data!.token } })).data.edgeRouters).toHaveLength(1);
    });

    it('current-identity/edge-routers lists only verified routers of the caller’s edge router policies', async () => {
      const d = await dialable();
      expect((await d.session.api.ok('getCurrentIdentityEdgeRouters')).data).toEqual([]);
      await db().update(edgeRouters).set({ isVerified: true }).where(eq(edgeRouters.id, d.rid));
      const listed = expectConforms(await d.session.api.call('getCurrentIdentityEdgeRouters'), 'getCurrentIdentityEdgeRouters', 'client');
      expect(listed.body.data.map((r) => r.id)).toEqual([d.rid]);
    });
  });

  describe('service-updates', () => {
    it('moves when the identity’s service list may have changed, and not otherwise', async () => {
      const d = await dialable();
      const last = async () => (expectConforms(await d.session.api.call('listServiceUpdates'), 'listServiceUpdates', 'client').body.data.lastChangeAt as string);
      const tick = () => new Promise((r) => setTimeout(r, 5));
      let before = await last();
      const moved = async (what: string, change: () => Promise<unknown>, expectMove: boolean) => {
        await tick();
        await change();
        const now = await last();
        if (expectMove) expect(Date.parse(now), what).toBeGreaterThan(Date.parse(before));
        else expect(now, what).toBe(before);
        before = now;
      };
      const stranger = await user();
      const other = await service();
      await moved('a policy for another identity', () => dial([`@${stranger.identityId}`], [`@${other}`]), false);
      await moved('an edge router change', () => admin.ok('patchEdgeRouter', { path: { id: d.rid }, body: { cost: 7 } }), false);
      await moved('a service it can dial is updated', () => admin.ok('patchService', { path: { id: d.sid }, body: { name: uniqueName('svc') } }), true);
      await moved('an unrelated service is updated', () => admin.ok('patchService', { path: { id: other }, body: { name: uniqueName('svc') } }), false);
      const cfg = id(await admin.ok('createConfig', { body: { name: uniqueName('cfg'), configTypeId: HOST, data: { protocol: 'tcp', address: 'localhost', port: 80 } } }));
      await moved('a config is attached to its service', () => admin.ok('patchService', { path: { id: d.sid }, body: { configs: [cfg] } }), true);
      await moved('that config changes', () => admin.ok('patchConfig', { path: { id: cfg }, body: { data: { protocol: 'tcp', address: 'localhost', port: 81 } } }), true);
      await moved('it gains a service', () => dial([`@${d.identityId}`], [`@${other}`], 'Bind'), true);
      await moved('its attributes change', () => admin.ok('patchIdentity', { path: { id: d.identityId }, body: { roleAttributes: ['x'] } }), true);
      await moved('it loses a service', () => admin.ok('deleteServicePolicy', { path: { id: d.policyId } }), true);
    });
  });

  describe('sessions', () => {
    it('creates a Dial session with its routers; a re-create on the same API session returns it again', async () => {
      const d = await dialable();
      const first = expectConforms(await d.session.api.call('createSession', { body: { serviceId: d.sid } }), 'createSession', 'client');
      expect(first.status).toBe(201);
      const s = first.body.data!;
      expect(s).toMatchObject({ type: 'Dial', serviceId: d.sid, apiSessionId: d.session.apiSessionId, identityId: d.identityId });
      expect(s.token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(s.edgeRouters.map((r) => r.name)).toHaveLength(1);
      expect(s._links).toHaveProperty('route-path');
      const again = await d.session.api.call('createSession', { body: { serviceId: d.sid, type: 'Dial' } });
      expect(again.status).toBe(201);
      expect([again.body.data!.id, again.body.data!.token]).toEqual([s.id, s.token]);
      // Another API session of the same identity gets its own session.
      const other = await (await d.login()).api.ok('createSession', { body: { serviceId: d.sid } });
      expect(other.data!.id).not.toBe(s.id);
      // The client detail has no servicePolicies; the management detail names the granting policy.
      expect(Object.keys((await d.session.api.ok('detailSession', { path: { id: s.id } })).data)).not.toContain('servicePolicies');
      const mgmt = expectConforms(await admin.call('detailSession', { path: { id: s.id } }), 'detailSession');
      expect(mgmt.body.data.servicePolicies!.map((p) => p.id)).toEqual([d.policyId]);
      expect(mgmt.body.data.token).toBe(s.token);
      expect((await admin.ok('detailSessionRoutePath', { path: { id: s.id } })).data).toEqual({ routePath: [] });
    });

    it('walks the checks in order: unknown or invisible 404, missing permission 400, no shared router 400', async () => {
      const d = await dialable();
      const missing = crypto.randomUUID();
      expectNotFound(await d.session.api.call('createSession', { body: { serviceId: missing } }), 'service', missing);
      const invisible = await service();
      expectNotFound(await d.session.api.call('createSession', { body: { serviceId: invisible } }), 'service', invisible);
      expectFieldError(await d.session.api.call('createSession', { body: { serviceId: d.sid, type: 'Bind' } }), 400, 'ServiceId', 'service not found');
      // An admin sees every service but holds no permission without a policy.
      const adminClient = asClient(await client().login(undefined, undefined, CLIENT));
      expectFieldError(await adminClient.call('createSession', { body: { serviceId: invisible } }), 400, 'ServiceId', 'service not found');
      const lonely = await service();
      await dial([`@${d.identityId}`], [`@${lonely}`]);
      expectError(await d.session.api.call('createSession', { body: { serviceId: lonely } }), 400, 'NO_EDGE_ROUTERS_AVAILABLE');
      expect(await db().select().from(sessions).where(eq(sessions.identityId, d.identityId))).toEqual([]);
    });

    it('stores one session for 50 concurrent creates on one API session', async () => {
      const d = await dialable();
      const replies = await Promise.all(Array.from({ length: 50 }, () => d.session.api.call('createSession', { body: { serviceId: d.sid } })));
      expect(replies.map((r) => r.status)).toEqual(Array(50).fill(201));
      expect(new Set(replies.map((r) => r.body.data!.id)).size).toBe(1);
      expect(await db().select().from(sessions).where(eq(sessions.apiSessionId, d.session.apiSessionId))).toHaveLength(1);
    });

    it('confines non-admins to their own sessions; admins see and delete any', async () => {
      const a = await dialable();
      const b = await dialable();
      const sa = (await a.session.api.ok('createSession', { body: { serviceId: a.sid } })).data!.id;
      const sb = (await b.session.api.ok('createSession', { body: { serviceId: b.sid } })).data!.id;
      const listed = expectConforms(await a.session.api.call('listSessions'), 'listSessions', 'client');
      expect(listed.body.data.map((s) => s.id)).toEqual([sa]);
      expectNotFound(await a.session.api.call('detailSession', { path: { id: sb } }), 'session', sb);
      expectNotFound(await a.session.api.call('deleteSession', { path: { id: sb } }), 'session', sb);
      const all = await admin.ok('listSessions', { query: { filter: `id in ["${sa}", "${sb}"]` } });
      expect(all.data.map((s) => s.id).sort()).toEqual([sa, sb].sort());
      // The controller's filter symbols (apiSession, service, type) and the JSON names; the token is not filterable.
      for (const filter of [`apiSession = "${a.session.apiSessionId}"`, `apiSessionId = "${a.session.apiSessionId}"`, `service = "${a.sid}" and type = "Dial"`, `serviceId = "${a.sid}"`]) {
        expect((await admin.ok('listSessions', { query: { filter } })).data.map((s) => s.id)).toEqual([sa]);
      }
      expectError(await admin.call('listSessions', { query: { filter: 'token = "x"' } }), 400, 'INVALID_FILTER');
      await a.session.api.ok('deleteSession', { path: { id: sa } });
      await admin.ok('deleteSession', { path: { id: sb } });
      expect((await admin.ok('listSessions', { query: { filter: `id in ["${sa}", "${sb}"]` } })).data).toEqual([]);
    });

    it('ends sessions with their API session, their service, their identity and the access that granted them', async () => {
      const count = async (apiSessionId: string) => (await db().select().from(sessions).where(eq(sessions.apiSessionId, apiSessionId))).length;
      const create = async (d: Awaited<ReturnType<typeof dialable>>) => (await d.session.api.ok('createSession', { body: { serviceId: d.sid } }), expect(await count(d.session.apiSessionId)).toBe(1));

      const loggedOut = await dialable();
      await create(loggedOut);
      await loggedOut.session.api.ok('deleteCurrentApiSession');
      expect(await count(loggedOut.session.apiSessionId)).toBe(0);

      const serviceGone = await dialable();
      await create(serviceGone);
      await admin.ok('deleteService', { path: { id: serviceGone.sid } });
      expect(await count(serviceGone.session.apiSessionId)).toBe(0);

      const identityGone = await dialable();
      await create(identityGone);
      await admin.ok('deleteIdentity', { path: { id: identityGone.identityId } });
      expect(await count(identityGone.session.apiSessionId)).toBe(0);

      const policyGone = await dialable();
      await create(policyGone);
      await admin.ok('deleteServicePolicy', { path: { id: policyGone.policyId } });
      expect(await count(policyGone.session.apiSessionId)).toBe(0);

      const attributesChanged = await dialable();
      const sp = await dial([`#${attributesChanged.username}`], [`@${attributesChanged.sid}`]);
      await admin.ok('deleteServicePolicy', { path: { id: attributesChanged.policyId } });
      await admin.ok('patchIdentity', { path: { id: attributesChanged.identityId }, body: { roleAttributes: [attributesChanged.username] } });
      await create(attributesChanged);
      await admin.ok('patchIdentity', { path: { id: attributesChanged.identityId }, body: { roleAttributes: [] } });
      expect(await count(attributesChanged.session.apiSessionId)).toBe(0);
      await admin.ok('deleteServicePolicy', { path: { id: sp } });

      // A change that keeps access keeps the session.
      const kept = await dialable();
      await create(kept);
      await dial([`@${kept.identityId}`], [`@${kept.sid}`], 'Bind');
      expect(await count(kept.session.apiSessionId)).toBe(1);
    });

    it('with an OIDC access token: the same services, a signed service-access token for a session, nothing stored', async () => {
      const d = await dialable();
      const bearer = (await new OidcClient(client).passwordTokens(d.username, PASSWORD)).access_token;
      const headers = { authorization: `Bearer ${bearer}` };
      const listed = await client().request(`${CLIENT}/services`, { headers });
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual([d.sid]);
      const created = await client().request(`${CLIENT}/sessions`, { headers, body: { serviceId: d.sid } });
      expect(created.status, created.text).toBe(201);
      const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(created.body.data.token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0))));
      expect(claims).toMatchObject({ sub: d.sid, z_iid: d.identityId, z_st: 'Dial', z_t: 's', jti: created.body.data.id, aud: ['openziti'] });
      expect(created.body.data.edgeRouters).toHaveLength(1);
      expect(await db().select().from(sessions).where(eq(sessions.identityId, d.identityId))).toEqual([]);
      const updates = await client().request(`${CLIENT}/current-api-session/service-updates`, { headers });
      expect(updates.status).toBe(200);
      expect(Date.parse(updates.body.data.lastChangeAt)).toBeGreaterThan(0);
    });

    it('refuses anonymous callers and bad bodies without storing anything', async () => {
      const d = await dialable();
      expectError(await asClient('').call('createSession', { body: { serviceId: d.sid } }), 401, 'UNAUTHORIZED');
      expectError(await d.session.api.call('createSession', { body: { serviceId: d.sid, type: 'Sideways' as 'Dial' } }), 400, 'COULD_NOT_VALIDATE');
      expectFieldError(await d.session.api.call('createSession', { body: {} }), 400, 'serviceId');
      expect(await db().select().from(sessions).where(eq(sessions.identityId, d.identityId))).toEqual([]);
    });
  });
};

export default clientViewSuite;
export const secrets = [PASSWORD];
