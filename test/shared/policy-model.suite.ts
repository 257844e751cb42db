import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { edgeRouterPolicies, edgeRouters, identities, serviceEdgeRouterPolicies, serviceGrantSets, servicePolicies, services } from '../../src/db/schema/index.js';
import { grantSetOf, reachable } from '../../src/policy/repo.js';
import { TypedApi, type ManagementOperations } from '../helpers/typed-api.js';
import type { Suite } from './suite.js';

/** A small seeded generator (mulberry32), so a failing sequence can be replayed from its seed. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const subset = <T>(xs: readonly T[], p = 0.4): T[] => xs.filter(() => next() < p);
  return { next, int, pick, subset };
}

/** The matching rule of §3.2, written plainly and independently of the SQL that maintains the links. */
export function matches(roles: string[], semantic: string, id: string, attrs: string[]): boolean {
  if (roles.includes(`@${id}`) || roles.includes('#all')) return true;
  const wanted = roles.filter((r) => r.startsWith('#')).map((r) => r.slice(1));
  if (wanted.length === 0) return false;
  return semantic === 'AnyOf' ? wanted.some((w) => attrs.includes(w)) : wanted.every((w) => attrs.includes(w));
}

const ATTRS = ['red', 'green', 'blue', 'ops', 'eng'];

/**
 * Derived access against a straightforward evaluator over randomised models (§3.2–§3.3): identities,
 * services and routers with random attributes, policies of the three kinds with `#attr`, `@id`, `#all`,
 * AllOf/AnyOf and mixes, then random creates, updates, attribute changes and deletes. At every checkpoint
 * the evaluator reads the stored entities and policies and computes who reaches what; the API's lists,
 * served from the link rows, must say exactly the same for every entity of the model.
 */
const policyModelSuite: Suite = ({ client, db, runtime }) => {
  let token = '';
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => token);
  beforeAll(async () => {
    token = await client().login();
  });

  async function expected(run: string) {
    const json = (s: string) => JSON.parse(s) as string[];
    const [ids, svcs, ers, sps, erps, serps] = await Promise.all([
      db().select().from(identities),
      db().select().from(services),
      db().select().from(edgeRouters),
      db().select().from(servicePolicies),
      db().select().from(edgeRouterPolicies),
      db().select().from(serviceEdgeRouterPolicies),
    ]);
    const mine = (tags: string) => (JSON.parse(tags) as Record<string, unknown>).model === run;
    const out = new Map<string, string[]>();
    const add = (key: string, v: string) => out.set(key, [...(out.get(key) ?? []), v]);
    for (const i of ids.filter((x) => mine(x.tags))) {
      for (const s of svcs.filter((x) => mine(x.tags))) {
        for (const type of ['Dial', 'Bind'] as const) {
          if (sps.some((p) => p.type === type && matches(json(p.identityRoles), p.semantic, i.id, json(i.roleAttributes)) && matches(json(p.serviceRoles), p.semantic, s.id, json(s.roleAttributes)))) add(`${i.id}/${type.toLowerCase()}`, s.id);
        }
      }
      for (const r of ers.filter((x) => mine(x.tags))) {
        if (erps.some((p) => matches(json(p.identityRoles), p.semantic, i.id, json(i.roleAttributes)) && matches(json(p.edgeRouterRoles), p.semantic, r.id, json(r.roleAttributes)))) add(`${i.id}/routers`, r.id);
      }
    }
    // Unfiltered totals count every service of the store the identity reaches, not only the model's.
    const totals = new Map<string, number>();
    for (const i of ids.filter((x) => mine(x.tags))) {
      totals.set(i.id, svcs.filter((s) => sps.some((p) => matches(json(p.identityRoles), p.semantic, i.id, json(i.roleAttributes)) && matches(json(p.serviceRoles), p.semantic, s.id, json(s.roleAttributes)))).length);
    }
    for (const s of svcs.filter((x) => mine(x.tags))) {
      for (const r of ers.filter((x) => mine(x.tags))) {
        if (serps.some((p) => matches(json(p.serviceRoles), p.semantic, s.id, json(s.roleAttributes)) && matches(json(p.edgeRouterRoles), p.semantic, r.id, json(r.roleAttributes)))) add(`${s.id}/routers`, r.id);
      }
    }
    return { out, totals, identityIds: ids.filter((x) => mine(x.tags)).map((x) => x.id), serviceIds: svcs.filter((x) => mine(x.tags)).map((x) => x.id) };
  }

  /** Pairs the evaluator found over all checkpoints: the comparisons must not be vacuous. */
  let pairsSeen = 0;
  async function check(run: string, step: string) {
    const { out, totals, identityIds, serviceIds } = await expected(run);
    for (const v of out.values()) pairsSeen += v.length;
    const query = { filter: `tags.model = "${run}"`, limit: 500 };
    const sorted = (xs: string[] | undefined) => [...(xs ?? [])].sort();
    for (const id of identityIds) {
      for (const policyType of ['dial', 'bind'] as const) {
        const got = await admin.ok('listIdentityServices', { path: { id }, query: { ...query, policyType } });
        expect(sorted(got.data.map((s) => s.id!)), `${step}: identity ${id} ${policyType}`).toEqual(sorted(out.get(`${id}/${policyType}`)));
        // Without a filter the page is one prepared statement of its own: the same services of this model.
        const plain = await admin.ok('listIdentityServices', { path: { id }, query: { limit: 500, policyType } });
        expect(sorted(plain.data.map((s) => s.id!).filter((s) => serviceIds.includes(s))), `${step}: identity ${id} ${policyType} (plain page)`).toEqual(sorted(out.get(`${id}/${policyType}`)));
      }
      // Every way of walking the links (src/policy/repo.ts, Walk) gives the same set.
      const walks = await Promise.all((['source', 'listed', 'policies'] as const).map(async (walk) => (await db().select({ id: services.id }).from(services).where(reachable('service', 'identity', id, ['dial', 'bind'], walk))).map((x) => x.id).sort()));
      expect(walks[1], `${step}: identity ${id} walks (listed)`).toEqual(walks[0]);
      expect(walks[2], `${step}: identity ${id} walks (policies)`).toEqual(walks[0]);
      expect(walks[0].length, `${step}: identity ${id} reachable`).toBe(totals.get(id));
      // The unfiltered total is the cached exact count: it must follow every write.
      const all = await admin.ok('listIdentityServices', { path: { id }, query: { limit: 1 } });
      expect(all.meta.pagination!.totalCount, `${step}: identity ${id} total`).toBe(totals.get(id));
      const routers = await admin.ok('listIdentityEdgeRouters', { path: { id }, query });
      expect(sorted(routers.data.map((r) => r.id!)), `${step}: identity ${id} routers`).toEqual(sorted(out.get(`${id}/routers`)));
    }
    // Each service's kept set of Dial/Bind policies is what its links say (src/policy/repo.ts, grantSetsOf).
    const asSet = (text: string | null) => (text === null ? null : (JSON.parse(text) as [string, string][]).map(([p, t]) => `${t}:${p}`).sort());
    for (const id of serviceIds) {
      const [kept] = await db().select({ kept: serviceGrantSets.grants, now: grantSetOf(id) }).from(services).leftJoin(serviceGrantSets, eq(serviceGrantSets.serviceId, services.id)).where(eq(services.id, id));
      expect(asSet(kept.kept), `${step}: service ${id} kept grant set`).toEqual(asSet(kept.now));
    }
    for (const id of serviceIds) {
      const routers = await admin.ok('listServiceEdgeRouters', { path: { id }, query });
      expect(sorted(routers.data.map((r) => r.id!)), `${step}: service ${id} routers`).toEqual(sorted(out.get(`${id}/routers`)));
    }
  }

  const seeds = runtime === 'node' ? [11, 29, 4242] : [7];
  const steps = runtime === 'node' ? 120 : 30;

  for (const seed of seeds) {
    it(`derived access equals the evaluator after random writes (seed ${seed}, ${steps} steps)`, async () => {
      const r = prng(seed);
      const run = `m${seed}-${crypto.randomUUID().slice(0, 6)}`;
      const tags = { model: run };
      const model = { identity: [] as string[], service: [] as string[], router: [] as string[], sp: [] as string[], erp: [] as string[], serp: [] as string[] };
      let n = 0;
      const name = (p: string) => `${run}-${p}-${n++}`;
      const attrs = () => r.subset(ATTRS);
      const roles = (kind: 'identity' | 'service' | 'router'): string[] => {
        const roll = r.next();
        if (roll < 0.12) return ['#all'];
        const out = r.subset(ATTRS, 0.3).map((a) => `#${a}`);
        if (model[kind].length > 0 && r.next() < 0.4) out.push(`@${r.pick(model[kind])}`);
        return out;
      };
      const semantic = () => r.pick(['AllOf', 'AnyOf'] as const);

      const createEntity = async (kind: 'identity' | 'service' | 'router') => {
        const body = { name: name(kind), roleAttributes: attrs(), tags };
        const reply =
          kind === 'identity'
            ? await admin.ok('createIdentity', { body: { ...body, isAdmin: false, type: 'User' } })
            : kind === 'service'
              ? await admin.ok('createService', { body: { ...body, encryptionRequired: true } })
              : await admin.ok('createEdgeRouter', { body });
        model[kind].push(reply.data!.id!);
      };
      const createPolicy = async (kind: 'sp' | 'erp' | 'serp') => {
        const reply =
          kind === 'sp'
            ? await admin.ok('createServicePolicy', { body: { name: name('sp'), type: r.pick(['Dial', 'Bind'] as const), semantic: semantic(), identityRoles: roles('identity'), serviceRoles: roles('service'), tags } })
            : kind === 'erp'
              ? await admin.ok('createEdgeRouterPolicy', { body: { name: name('erp'), semantic: semantic(), identityRoles: roles('identity'), edgeRouterRoles: roles('router'), tags } })
              : await admin.ok('createServiceEdgeRouterPolicy', { body: { name: name('serp'), semantic: semantic(), serviceRoles: roles('service'), edgeRouterRoles: roles('router'), tags } });
        model[kind].push(reply.data!.id!);
      };

      for (const kind of ['identity', 'identity', 'identity', 'service', 'service', 'service', 'router', 'router'] as const) await createEntity(kind);
      for (const kind of ['sp', 'sp', 'sp', 'erp', 'erp', 'serp', 'serp'] as const) await createPolicy(kind);
      await check(run, 'seeded');

      for (let step = 0; step < steps; step++) {
        const op = r.int(9);
        const entityKind = r.pick(['identity', 'service', 'router'] as const);
        const policyKind = r.pick(['sp', 'erp', 'serp'] as const);
        if (op === 0) await createEntity(entityKind);
        else if (op === 1) await createPolicy(policyKind);
        else if (op <= 3 && model[entityKind].length > 0) {
          const id = r.pick(model[entityKind]);
          const body = { roleAttributes: attrs() };
          if (entityKind === 'identity') await admin.ok('patchIdentity', { path: { id }, body });
          else if (entityKind === 'service') await admin.ok('patchService', { path: { id }, body });
          else await admin.ok('patchEdgeRouter', { path: { id }, body });
        } else if (op <= 5 && model[policyKind].length > 0) {
          const id = r.pick(model[policyKind]);
          const put = r.next() < 0.5;
          if (policyKind === 'sp') {
            const body = { semantic: semantic(), identityRoles: roles('identity'), ...(r.next() < 0.5 ? { serviceRoles: roles('service') } : {}), ...(r.next() < 0.3 ? { type: r.pick(['Dial', 'Bind'] as const) } : {}) };
            if (put) await admin.ok('updateServicePolicy', { path: { id }, body: { name: name('sp'), type: 'Dial', serviceRoles: [], ...body, tags } });
            else await admin.ok('patchServicePolicy', { path: { id }, body });
          } else if (policyKind === 'erp') {
            const body = { ...(r.next() < 0.5 ? { semantic: semantic() } : {}), edgeRouterRoles: roles('router') };
            if (put) await admin.ok('updateEdgeRouterPolicy', { path: { id }, body: { name: name('erp'), semantic: 'AnyOf', ...body, tags } });
            else await admin.ok('patchEdgeRouterPolicy', { path: { id }, body });
          } else {
            const body = { semantic: semantic(), serviceRoles: roles('service') };
            if (put) await admin.ok('updateServiceEdgeRouterPolicy', { path: { id }, body: { name: name('serp'), ...body, tags } });
            else await admin.ok('patchServiceEdgeRouterPolicy', { path: { id }, body });
          }
        } else if (op === 6 && model[entityKind].length > 1) {
          const id = model[entityKind].splice(r.int(model[entityKind].length), 1)[0];
          if (entityKind === 'identity') await admin.ok('deleteIdentity', { path: { id } });
          else if (entityKind === 'service') await admin.ok('deleteService', { path: { id } });
          else await admin.ok('deleteEdgeRouter', { path: { id } });
        } else if (op === 7 && model[policyKind].length > 1) {
          const id = model[policyKind].splice(r.int(model[policyKind].length), 1)[0];
          if (policyKind === 'sp') await admin.ok('deleteServicePolicy', { path: { id } });
          else if (policyKind === 'erp') await admin.ok('deleteEdgeRouterPolicy', { path: { id } });
          else await admin.ok('deleteServiceEdgeRouterPolicy', { path: { id } });
        } else await createEntity(entityKind);
        if (step % 10 === 9) await check(run, `seed ${seed} step ${step}`);
      }
      await check(run, `seed ${seed} end`);
      expect(pairsSeen).toBeGreaterThan(20);
      // `#all` policies would reach the entities of later suites sharing this store.
      for (const pid of model.sp) await admin.ok('deleteServicePolicy', { path: { id: pid } });
      for (const pid of model.erp) await admin.ok('deleteEdgeRouterPolicy', { path: { id: pid } });
      for (const pid of model.serp) await admin.ok('deleteServiceEdgeRouterPolicy', { path: { id: pid } });
    }, 240_000);
  }
};

export default policyModelSuite;
