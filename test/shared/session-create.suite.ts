import { describe, expect, it } from 'vitest';
import { edgeRouterPolicies, edgeRouters, serviceEdgeRouterPolicies } from '../../src/db/schema/index.js';
import { CLIENT } from '../helpers/client.js';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ClientOperations } from '../helpers/typed-api.js';
import { storeFixtures, unique } from './auth-fixtures.js';
import { expectError, uniqueName } from './identities.suite.js';
import { matches, prng } from './policy-model.suite.js';
import { adminWithPostureChecks } from './posture-checks.suite.js';
import type { Suite } from './suite.js';

const PASSWORD = 'session-create-password-1';

/**
 * `POST /sessions` beyond the client-view walk-through (reference model-and-policies §3.3 c, §6.1, §6.2):
 * the routers a session gets, against a plain evaluator of the policies over the whole store, the same
 * in the create answer, the management detail and the service's edge-router list; the order of several
 * granting policies in a posture refusal; Dial and Bind sessions side by side.
 */
const sessionCreateSuite: Suite = ({ client, db, runtime }) => {
  const { admin, checks } = adminWithPostureChecks(client);
  const id = (reply: { data?: { id?: string | null } | null }) => reply.data!.id!;

  async function user(roleAttributes: string[] = []) {
    const username = unique('sc');
    const { identityId } = await storeFixtures(db()).createUser({ username, password: PASSWORD });
    if (roleAttributes.length > 0) await admin.ok('patchIdentity', { path: { id: identityId }, body: { roleAttributes } });
    const reply = await client().request(`${CLIENT}/authenticate?method=password`, { body: { username, password: PASSWORD } });
    expect(reply.status, reply.text).toBe(200);
    const token = reply.body.data.token as string;
    return { identityId, apiSessionId: reply.body.data.id as string, api: new TypedApi<ClientOperations>(client, 'client', () => token) };
  }
  const service = async () => id(await admin.ok('createService', { body: { name: uniqueName('svc'), encryptionRequired: true } }));
  const policy = async (identityId: string, serviceId: string, type: 'Dial' | 'Bind', postureCheckRoles: string[] = []) =>
    id(await admin.ok('createServicePolicy', { body: { name: uniqueName('sp'), type, semantic: 'AnyOf', identityRoles: [`@${identityId}`], serviceRoles: [`@${serviceId}`], postureCheckRoles } }));

  /** Routers a session gets, by the rule of §3.3 c over every router and policy in the store: ids sorted, at most 25. */
  async function expectedRouters(identity: { id: string; attrs: string[] }, serviceId: string, serviceAttrs: string[]) {
    const json = (s: string) => JSON.parse(s) as string[];
    const [routers, erps, serps] = await Promise.all([db().select().from(edgeRouters), db().select().from(edgeRouterPolicies), db().select().from(serviceEdgeRouterPolicies)]);
    return routers
      .filter((r) => erps.some((p) => matches(json(p.identityRoles), p.semantic, identity.id, identity.attrs) && matches(json(p.edgeRouterRoles), p.semantic, r.id, json(r.roleAttributes))))
      .filter((r) => serps.some((p) => matches(json(p.serviceRoles), p.semantic, serviceId, serviceAttrs) && matches(json(p.edgeRouterRoles), p.semantic, r.id, json(r.roleAttributes))))
      .map((r) => r.id)
      .sort()
      .slice(0, 25);
  }

  describe('routers', () => {
    const seeds = runtime === 'node' ? [7, 29] : [11];
    for (const seed of seeds) {
      it(`a session gets the first 25 routers by id both sides' policies give, wherever they are read (seed ${seed})`, async () => {
        const r = prng(seed);
        const run = `sc${seed}-${crypto.randomUUID().slice(0, 6)}`;
        const attrs = [`${run}-a`, `${run}-b`, `${run}-c`, `${run}-d`];
        const identityAttrs = r.subset(attrs, 0.5);
        const u = await user(identityAttrs);
        const routerIds: string[] = [];
        for (let i = 0; i < 34; i++) {
          // Values that render differently from the defaults, on some of them.
          const extra = i % 5 === 0 ? { cost: 7 + i, noTraversal: true, disabled: true, appData: { n: i } } : {};
          routerIds.push(id(await admin.ok('createEdgeRouter', { body: { name: uniqueName('er'), roleAttributes: r.subset(attrs, 0.5), ...extra } })));
        }
        const roles = (ids: string[]) => [...r.subset(attrs, 0.3).map((a) => `#${a}`), ...(r.next() < 0.5 ? [`@${r.pick(ids)}`] : [])];
        for (let i = 0; i < 4; i++) {
          await admin.ok('createEdgeRouterPolicy', { body: { name: uniqueName('erp'), semantic: r.pick(['AllOf', 'AnyOf'] as const), identityRoles: r.next() < 0.3 ? [`@${u.identityId}`] : roles([u.identityId]), edgeRouterRoles: roles(routerIds) } });
        }
        const serviceIds: string[] = [];
        for (let i = 0; i < 4; i++) {
          const sid = id(await admin.ok('createService', { body: { name: uniqueName('svc'), encryptionRequired: true, roleAttributes: r.subset(attrs, 0.5) } }));
          serviceIds.push(sid);
          await policy(u.identityId, sid, 'Dial');
        }
        // The first service reaches every router, the next two some, the last none.
        for (let i = 0; i < 3; i++) {
          await admin.ok('createServiceEdgeRouterPolicy', { body: { name: uniqueName('serp'), semantic: r.pick(['AllOf', 'AnyOf'] as const), serviceRoles: [`@${serviceIds[i]}`], edgeRouterRoles: i === 0 ? ['#all'] : roles(routerIds) } });
        }
        const stored = new Map((await db().select().from(edgeRouters)).map((x) => [x.id, x]));
        let withRouters = 0;
        for (const sid of serviceIds) {
          const svcAttrs = (await admin.ok('detailService', { path: { id: sid } })).data.roleAttributes ?? [];
          const expected = await expectedRouters({ id: u.identityId, attrs: identityAttrs }, sid, svcAttrs);
          const listed = await u.api.ok('listServiceEdgeRouters', { path: { id: sid } });
          expect(listed.data.edgeRouters!.map((x) => x.name)).toEqual(expected.map((x) => stored.get(x)!.name));
          const created = await u.api.call('createSession', { body: { serviceId: sid } });
          if (expected.length === 0) {
            expectError(created, 400, 'NO_EDGE_ROUTERS_AVAILABLE');
            continue;
          }
          withRouters++;
          const session = expectConforms(created, 'createSession', 'client').body.data!;
          expect(session.edgeRouters.map((x) => x.name)).toEqual(expected.map((x) => stored.get(x)!.name));
          for (const [i, item] of session.edgeRouters.entries()) {
            const row = stored.get(expected[i])!;
            expect(item).toEqual({ name: row.name, hostname: '', isOnline: false, supportedProtocols: {}, syncStatus: 'SYNC_UNKNOWN', cost: row.cost, noTraversal: row.noTraversal, disabled: row.disabled, appData: JSON.parse(row.appData), urls: {} });
          }
          // Read back through the list query's own router selection.
          const detail = await admin.ok('detailSession', { path: { id: session.id } });
          expect(detail.data.edgeRouters).toEqual(session.edgeRouters);
          const again = await u.api.ok('createSession', { body: { serviceId: sid } });
          expect(again.data).toEqual(session);
        }
        expect(withRouters).toBeGreaterThan(0);
      });
    }

    it('caps the routers at 25, by id', async () => {
      const u = await user();
      const sid = await service();
      await policy(u.identityId, sid, 'Dial');
      const tag = `cap-${crypto.randomUUID().slice(0, 6)}`;
      for (let i = 0; i < 27; i++) await admin.ok('createEdgeRouter', { body: { name: uniqueName('er'), roleAttributes: [tag] } });
      await admin.ok('createEdgeRouterPolicy', { body: { name: uniqueName('erp'), semantic: 'AnyOf', identityRoles: [`@${u.identityId}`], edgeRouterRoles: [`#${tag}`] } });
      await admin.ok('createServiceEdgeRouterPolicy', { body: { name: uniqueName('serp'), semantic: 'AnyOf', serviceRoles: [`@${sid}`], edgeRouterRoles: [`#${tag}`] } });
      const names = new Map((await db().select().from(edgeRouters)).map((x) => [x.id, x.name]));
      const expected = await expectedRouters({ id: u.identityId, attrs: [] }, sid, []);
      expect(expected).toHaveLength(25);
      const session = (await u.api.ok('createSession', { body: { serviceId: sid } })).data!;
      expect(session.edgeRouters.map((x) => x.name)).toEqual(expected.map((x) => names.get(x)));
    });
  });

  describe('creates', () => {
    it('keeps a Dial and a Bind session of one API session apart, each answered again on a re-create', async () => {
      const u = await user();
      const sid = await service();
      const rid = id(await admin.ok('createEdgeRouter', { body: { name: uniqueName('er') } }));
      await admin.ok('createEdgeRouterPolicy', { body: { name: uniqueName('erp'), semantic: 'AnyOf', identityRoles: [`@${u.identityId}`], edgeRouterRoles: [`@${rid}`] } });
      await admin.ok('createServiceEdgeRouterPolicy', { body: { name: uniqueName('serp'), semantic: 'AnyOf', serviceRoles: [`@${sid}`], edgeRouterRoles: [`@${rid}`] } });
      const dialPolicies = [await policy(u.identityId, sid, 'Dial'), await policy(u.identityId, sid, 'Dial')].sort();
      const bindPolicy = await policy(u.identityId, sid, 'Bind');
      const dial = (await u.api.ok('createSession', { body: { serviceId: sid, type: 'Dial', tags: { a: 1 } } })).data!;
      const bind = (await u.api.ok('createSession', { body: { serviceId: sid, type: 'Bind' } })).data!;
      expect(dial.id).not.toBe(bind.id);
      expect(dial.token).not.toBe(bind.token);
      expect(dial.tags).toEqual({ a: 1 });
      // A re-create answers the stored session: its own tags, not the request's.
      expect((await u.api.ok('createSession', { body: { serviceId: sid, type: 'Dial', tags: { b: 2 } } })).data).toEqual(dial);
      expect((await u.api.ok('createSession', { body: { serviceId: sid, type: 'Bind' } })).data).toEqual(bind);
      const refs = async (sessionId: string) => (await admin.ok('detailSession', { path: { id: sessionId } })).data.servicePolicies!.map((p) => p.id);
      expect(await refs(dial.id)).toEqual(dialPolicies);
      expect(await refs(bind.id)).toEqual([bindPolicy]);
    });

    it('refuses with every failing granting policy of the type, in id order, and records them with their names', async () => {
      const u = await user();
      const sid = await service();
      const checkId = id(await admin.ok('createPostureCheck', { body: { name: uniqueName('pc'), typeId: 'DOMAIN', domains: ['corp.example'] } as never }));
      checks.push(checkId);
      const names = [uniqueName('sp'), uniqueName('sp')];
      const policyIds = [];
      for (const name of names) {
        policyIds.push(id(await admin.ok('createServicePolicy', { body: { name, type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${u.identityId}`], serviceRoles: [`@${sid}`], postureCheckRoles: [`@${checkId}`] } })));
      }
      // A Bind policy without checks does not help a Dial session.
      await policy(u.identityId, sid, 'Bind');
      const ordered = policyIds.map((p, i) => ({ p, name: names[i] })).sort((a, b) => (a.p < b.p ? -1 : 1));
      const refused = expectError(await u.api.call('createSession', { body: { serviceId: sid, type: 'Dial' } }), 409, 'INVALID_POSTURE');
      expect(refused.body.error.cause).toEqual({
        message: `Failed to pass posture checks for service policies: [${ordered.map((o) => o.p).join(' ')}]`,
        data: Object.fromEntries(ordered.map((o) => [o.p, [{ id: checkId, typeId: 'DOMAIN', isPassing: false }]])),
      });
      const failed = (await admin.ok('getIdentityFailedServiceRequests', { path: { id: u.identityId } })).data;
      expect(failed).toHaveLength(1);
      expect(failed[0].policyFailures!.map((f) => [f.policyId, f.policyName])).toEqual(ordered.map((o) => [o.p, o.name]));
    });
  });
};

export default sessionCreateSuite;
export const secrets = [PASSWORD];
