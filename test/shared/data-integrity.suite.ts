import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  accessCounts,
  apiSessionCertificates,
  apiSessions,
  authAttempts,
  authenticators,
  configs,
  enrollments,
  identities,
  identityServiceConfigs,
  integrityRuns,
  mfas,
  policyLinks,
  serviceGrantSets,
  serviceConfigs,
  servicePolicies,
  sessions,
  terminators,
} from '../../src/db/schema/index.js';
import type { DataIntegrityCheckDetails } from '../../src/generated/management-types.js';
import { claimRun, finishRun } from '../../src/operations/runs-repo.js';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ManagementOperations } from '../helpers/typed-api.js';
import { expectError, uniqueName } from './identities.suite.js';
import type { Suite } from './suite.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PLAIN_PASSWORD = 'integrity-pass-1';

/**
 * `POST /database/check-data-integrity`, `fix-data-integrity` and `GET /database/data-integrity-results`
 * (reference model-and-policies §10.5; docs/operations.md, "Data integrity"): derived rows corrupted
 * directly in the store are found, one result each, and repaired; access answers are right again.
 */
const dataIntegritySuite: Suite = ({ client, db }) => {
  let token = '';
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => token);
  beforeAll(async () => {
    token = await client().login();
  });
  const id = (reply: { data?: { id?: string | null } | null }) => reply.data!.id!;
  const identity = async (roleAttributes: string[] = []) => id(await admin.ok('createIdentity', { body: { name: uniqueName('di-id'), isAdmin: false, type: 'User', roleAttributes } }));
  const service = async (roleAttributes: string[] = []) => id(await admin.ok('createService', { body: { name: uniqueName('di-svc'), encryptionRequired: true, roleAttributes } }));

  /** The run's results once it has ended (on workerd it goes on after the 202). */
  async function finished(): Promise<DataIntegrityCheckDetails> {
    for (let i = 0; i < 1200; i++) {
      const reply = expectConforms(await admin.call('dataIntegrityResults'), 'dataIntegrityResults');
      expect(reply.body.meta.pagination).toEqual({ limit: -1, offset: 0, totalCount: reply.body.data.results.length });
      if (!reply.body.data.inProgress) return reply.body.data;
      await sleep(50);
    }
    throw new Error('the integrity run did not end');
  }

  async function run(mode: 'check' | 'fix'): Promise<DataIntegrityCheckDetails> {
    const started = await admin.call(mode === 'check' ? 'checkDataIntegrity' : 'fixDataIntegrity');
    expectConforms(started, mode === 'check' ? 'checkDataIntegrity' : 'fixDataIntegrity');
    expect(started.status).toBe(202);
    expect(started.body).toEqual({ data: {}, meta: {} });
    const details = await finished();
    expect(details).toMatchObject({ inProgress: false, fixingErrors: mode === 'fix', error: '' });
    expect(Date.parse(details.endTime)).toBeGreaterThanOrEqual(Date.parse(details.startTime));
    return details;
  }

  /** The results naming `text`. */
  const naming = (details: DataIntegrityCheckDetails, text: string) => details.results.filter((r) => r.description.includes(text));

  async function serviceIds(identityId: string): Promise<{ ids: string[]; total: number }> {
    const reply = await admin.ok('listIdentityServices', { path: { id: identityId }, query: { limit: 500 } });
    return { ids: reply.data.map((s) => s.id).sort(), total: reply.meta.pagination!.totalCount };
  }

  describe('data integrity', () => {
    it('finds nothing in a store written through the API', async () => {
      // Whatever the suites before this one wrote directly into the store is repaired first.
      await run('fix');
      const details = await run('check');
      expect(details.results).toEqual([]);
      expect(details.tooManyErrors).toBe(false);
    });

    it('finds a deleted link, a stale link and an orphaned authenticator once each, and fix repairs them', async () => {
      const attr = uniqueName('di-attr');
      const [a, b] = [await identity([attr]), await identity([attr])];
      const [matched, other] = [await service([attr]), await service()];
      const policy = id(await admin.ok('createServicePolicy', { body: { name: uniqueName('di-sp'), type: 'Dial', semantic: 'AllOf', identityRoles: [`#${attr}`], serviceRoles: [`#${attr}`] } }));
      const linked = await db().select({ entityId: policyLinks.entityId }).from(policyLinks).where(eq(policyLinks.policyId, policy));
      expect(linked.map((l) => l.entityId).sort()).toEqual([a, b, matched].sort());

      // Corrupt the derived rows directly: a's link goes, the policy gains a link to a service it does not match.
      await db().delete(policyLinks).where(and(eq(policyLinks.policyId, policy), eq(policyLinks.entityId, a)));
      await db().insert(policyLinks).values({ policyId: policy, role: 'service', entityId: other, policyType: 'dial' });
      const orphan = `di-auth-${uniqueName('x')}`;
      await db().insert(authenticators).values({ id: orphan, createdAt: Date.now(), updatedAt: Date.now(), identityId: `gone-${orphan}`, method: 'updb', username: orphan });
      // Access answers are wrong now.
      expect((await serviceIds(a)).ids).toEqual([]);
      expect((await serviceIds(b)).ids).toEqual([matched, other].sort());

      const found = await run('check');
      expect(found.results, JSON.stringify(found.results, null, 1)).toHaveLength(4);
      expect(naming(found, a)).toEqual([{ description: expect.stringMatching(/link is missing/), fixed: false }]);
      // The stale link also makes the service's kept set of policies differ from its links.
      expect(naming(found, other)).toEqual([
        { description: expect.stringMatching(/does not match/), fixed: false },
        { description: expect.stringMatching(/kept set of Dial\/Bind policies differs/), fixed: false },
      ]);
      expect(naming(found, orphan)).toEqual([{ description: expect.stringMatching(/missing identity/), fixed: false }]);
      // A check changes nothing.
      expect((await serviceIds(a)).ids).toEqual([]);

      // Repairs apply as each checker goes: the kept set is examined after the links are repaired.
      const stampOf = async (identityId: string) => (await db().select({ at: identities.servicesChangedAt }).from(identities).where(eq(identities.id, identityId)))[0].at ?? 0;
      const stampBefore = await stampOf(b);
      const fixed = await run('fix');
      // b's list changed behind the API: the repair moves its stamp (service-updates, kept service pages).
      expect(await stampOf(b)).toBeGreaterThan(stampBefore);
      expect(fixed.results).toHaveLength(3);
      expect(fixed.results.every((r) => r.fixed)).toBe(true);
      expect((await run('check')).results).toEqual([]);
      expect(await serviceIds(a)).toEqual({ ids: [matched], total: 1 });
      expect(await serviceIds(b)).toEqual({ ids: [matched], total: 1 });
      expect(await db().select().from(authenticators).where(eq(authenticators.id, orphan))).toEqual([]);
    });

    it('finds a stale cached total and an @id naming a deleted identity', async () => {
      const attr = uniqueName('di-count');
      const who = await identity([attr]);
      const gone = await identity();
      const svc = await service([attr]);
      await admin.ok('createServicePolicy', { body: { name: uniqueName('di-sp'), type: 'Bind', semantic: 'AnyOf', identityRoles: [`#${attr}`], serviceRoles: [`#${attr}`] } });
      const named = id(await admin.ok('createServicePolicy', { body: { name: uniqueName('di-sp'), type: 'Dial', semantic: 'AllOf', identityRoles: [`@${gone}`], serviceRoles: [`@${svc}`] } }));
      expect(await serviceIds(who)).toEqual({ ids: [svc], total: 1 });
      // The cached total is corrupted; the identity row goes without its cascade.
      await db().update(accessCounts).set({ total: sql`${accessCounts.total} + 5` }).where(eq(accessCounts.identityId, who));
      await db().delete(identities).where(eq(identities.id, gone));
      expect((await serviceIds(who)).total).toBe(6);

      const found = await run('check');
      expect(naming(found, who)).toEqual([{ description: expect.stringMatching(/cached service total .* is 6, its policy links give 1/), fixed: false }]);
      expect(naming(found, gone).map((r) => r.description)).toEqual([expect.stringMatching(/names identity @.* which does not exist/), expect.stringMatching(/does not match/)]);
      expect(found.results, JSON.stringify(found.results, null, 1)).toHaveLength(3);

      await run('fix');
      expect((await run('check')).results).toEqual([]);
      expect(await serviceIds(who)).toEqual({ ids: [svc], total: 1 });
      expect((await admin.ok('detailServicePolicy', { path: { id: named } })).data.identityRoles).toBeNull();
    });

    it('finds and repairs one of each kind of dangling or malformed row', async () => {
      const u = uniqueName('di-kind');
      const now = Date.now();
      const base = { createdAt: now, updatedAt: now };
      const [who, other] = [await identity([`${u}-b`]), await identity()];
      const svc = await service();
      const policy = id(await admin.ok('createServicePolicy', { body: { name: uniqueName('di-sp'), type: 'Dial', semantic: 'AnyOf', identityRoles: [`#${u}-b`], serviceRoles: [] } }));
      const store = db();
      await store.update(identities).set({ roleAttributes: JSON.stringify([`${u}-b`, `${u}-a`, `${u}-b`]) }).where(eq(identities.id, who));
      await store.update(identities).set({ authPolicyId: `${u}-policy` }).where(eq(identities.id, other));
      await store.insert(configs).values({ ...base, id: `${u}-cfg`, name: `${u}-cfg`, configTypeId: `${u}-type`, data: '{}' });
      await store.insert(serviceConfigs).values({ serviceId: svc, configTypeId: 'g7cIWbcGg', configId: `${u}-svccfg` });
      await store.insert(identityServiceConfigs).values({ identityId: who, serviceId: svc, configTypeId: 'g7cIWbcGg', configId: `${u}-ovr` });
      await store.insert(authAttempts).values({ authenticatorId: `${u}-attempt`, failedCount: 1, lastFailedAt: now });
      await store.insert(enrollments).values({ ...base, id: `${u}-enr`, method: 'ott', identityId: `${u}-gone`, tokenHash: `${u}-hash`, jwtSealed: 'x', issuedAt: now, expiresAt: now + 60_000 });
      await store.insert(mfas).values({ ...base, id: `${u}-mfa`, identityId: `${u}-gone`, secret: 'x', recoveryCodes: 'x' });
      await store.insert(apiSessions).values({ ...base, id: `${u}-as`, tokenHash: `${u}-tok`, identityId: `${u}-gone`, authenticatorId: 'x', lastActivityAt: now });
      await store.insert(apiSessionCertificates).values({ ...base, id: `${u}-asc`, apiSessionId: `${u}-as2`, identityId: who, subject: 'CN=x', fingerprint: `${u}-fp`, validFrom: now, validTo: now, certPem: 'x' });
      await store.insert(terminators).values({ ...base, id: `${u}-term`, serviceId: svc, routerId: `${u}-router`, binding: 'transport', address: 'tcp:x:1' });
      await store.insert(policyLinks).values({ policyId: `${u}-nopolicy`, role: 'identity', entityId: who, policyType: 'dial' });
      await store.delete(serviceGrantSets).where(eq(serviceGrantSets.serviceId, svc));
      await store.insert(serviceGrantSets).values({ serviceId: `${u}-gone-svc`, grants: '[]' });
      const markers = [`${svc} has no kept set`, `${u}-gone-svc`, `${who} (`, `${u}-policy`, `${u}-cfg`, `${u}-svccfg`, `${u}-ovr`, `${u}-attempt`, `${u}-enr`, `${u}-mfa`, `${u}-as `, `${u}-asc`, `${u}-term`, `${u}-nopolicy`];

      const found = await run('check');
      for (const m of markers) expect(naming(found, m), m + JSON.stringify(found.results, null, 1)).toHaveLength(1);
      expect(found.results).toHaveLength(markers.length);

      const fixed = await run('fix');
      expect(fixed.results).toHaveLength(markers.length);
      expect((await run('check')).results).toEqual([]);
      const rows = await store.select({ id: identities.id, roleAttributes: identities.roleAttributes, authPolicyId: identities.authPolicyId }).from(identities).where(sql`${identities.id} IN (${who}, ${other})`);
      expect(Object.fromEntries(rows.map((r) => [r.id, [r.roleAttributes, r.authPolicyId]]))).toEqual({ [who]: [JSON.stringify([`${u}-a`, `${u}-b`]), 'default'], [other]: ['[]', 'default'] });
      expect(await store.select().from(configs).where(eq(configs.id, `${u}-cfg`))).toEqual([]);
      expect(await store.select().from(terminators).where(eq(terminators.id, `${u}-term`))).toEqual([]);
      expect(await store.select().from(mfas).where(eq(mfas.id, `${u}-mfa`))).toEqual([]);
      expect(await store.select().from(policyLinks).where(eq(policyLinks.policyId, policy))).toEqual([{ policyId: policy, role: 'identity', entityId: who, policyType: 'dial' }]);
    });

    it('finds a session of a missing API session and a session no policy grants any more, and fix ends both', async () => {
      const u = uniqueName('di-sess');
      const now = Date.now();
      const [who, svc] = [await identity(), await service()];
      const store = db();
      const login = (await store.select({ id: apiSessions.id }).from(apiSessions).limit(1))[0].id;
      const row = { createdAt: now, updatedAt: now, identityId: who, serviceId: svc, type: 'Dial' as const };
      await store.insert(sessions).values({ ...row, id: `${u}-orphan`, apiSessionId: `${u}-gone` });
      await store.insert(sessions).values({ ...row, id: `${u}-denied`, apiSessionId: login });
      const found = await run('check');
      for (const m of [`${u}-orphan`, `${u}-denied`]) expect(naming(found, m), m).toHaveLength(1);
      expect(found.results).toHaveLength(2);
      await run('fix');
      expect(await store.select().from(sessions).where(sql`${sessions.id} IN (${`${u}-orphan`}, ${`${u}-denied`})`)).toEqual([]);
      expect((await run('check')).results).toEqual([]);
    });

    it('keeps at most 1,000 results, says there were more, and fixes them all', async () => {
      const u = uniqueName('di-many');
      const now = Date.now();
      const rows = Array.from({ length: 1005 }, (_, i) => ({ id: `${u}-${i}`, createdAt: now, updatedAt: now, identityId: `${u}-gone`, method: 'cert' as const }));
      // 12 bound parameters a row (defaults included): 8 rows per statement stay within D1's 100.
      for (let i = 0; i < rows.length; i += 200) {
        const chunk = rows.slice(i, i + 200);
        await (db() as unknown as { batch(items: unknown[]): Promise<unknown> }).batch(Array.from({ length: Math.ceil(chunk.length / 8) }, (_, j) => db().insert(authenticators).values(chunk.slice(j * 8, j * 8 + 8))));
      }
      const found = await run('check');
      expect(found.results).toHaveLength(1000);
      expect(found.tooManyErrors).toBe(true);
      const fixed = await run('fix');
      expect(fixed.tooManyErrors).toBe(true);
      expect(fixed.results.every((r) => r.fixed)).toBe(true);
      const after = await run('check');
      expect(after).toMatchObject({ results: [], tooManyErrors: false });
      expect(await db().select({ n: sql<number>`count(*)` }).from(authenticators).where(eq(authenticators.identityId, `${u}-gone`))).toEqual([{ n: 0 }]);
    });

    it('runs once at a time across instances: 429 while another instance runs, carried on when it stops', async () => {
      const now = Date.now();
      // Another instance's run, holding its lease.
      await db()
        .insert(integrityRuns)
        .values({ id: 'current', runId: 'other-instance', mode: 'check', inProgress: true, startedAt: now, resultCount: 0, leaseToken: 'theirs', leaseUntil: now + 60_000 })
        .onConflictDoUpdate({ target: integrityRuns.id, set: { runId: 'other-instance', mode: 'check', inProgress: true, startedAt: now, endedAt: null, error: '', resultCount: 0, tooManyErrors: false, cursor: '{"checker":0,"cursor":null}', leaseToken: 'theirs', leaseUntil: now + 60_000 } });
      expectError(await admin.call('checkDataIntegrity'), 429, 'RATE_LIMITED');
      expectError(await admin.call('fixDataIntegrity'), 429, 'RATE_LIMITED');
      const running = expectConforms(await admin.call('dataIntegrityResults'), 'dataIntegrityResults').body.data;
      expect(running).toMatchObject({ inProgress: true, fixingErrors: false, endTime: '0001-01-01T00:00:00.000Z' });
      // That instance stops: its lease lapses, and the next look carries the run on to its end.
      await db().update(integrityRuns).set({ leaseUntil: 0 }).where(eq(integrityRuns.id, 'current'));
      const carried = await finished();
      expect(carried).toMatchObject({ inProgress: false, error: '', results: [] });
      expect(await db().select({ runId: integrityRuns.runId }).from(integrityRuns)).toEqual([{ runId: 'other-instance' }]);

      // Starts at once on many instances: the store lets exactly one claim the run.
      const leases = Array.from({ length: 10 }, (_, i) => ({ runId: `race-${i}-${now}`, token: `token-${i}` }));
      const won = await Promise.all(leases.map((lease) => claimRun(db(), lease, 'check', now, now + 60_000)));
      expect(won.filter(Boolean)).toHaveLength(1);
      expectError(await admin.call('checkDataIntegrity'), 429, 'RATE_LIMITED');
      await finishRun(db(), leases[won.indexOf(true)], Date.now());
      // Through the API: every start is accepted or refused, at least one runs, and the run ends clean.
      const replies = await Promise.all([admin.call('checkDataIntegrity'), admin.call('fixDataIntegrity'), admin.call('checkDataIntegrity')]);
      for (const r of replies) if (r.status !== 202) expectError(r, 429, 'RATE_LIMITED');
      expect(replies.some((r) => r.status === 202)).toBe(true);
      expect(await finished()).toMatchObject({ inProgress: false, error: '', results: [] });
    });

    it('is for admins only', async () => {
      const plain = await identity();
      const username = uniqueName('di-login');
      await admin.ok('createAuthenticator', { body: { method: 'updb', identityId: plain, username, password: PLAIN_PASSWORD } });
      const userToken = await client().login(username, PLAIN_PASSWORD);
      for (const op of ['checkDataIntegrity', 'fixDataIntegrity', 'dataIntegrityResults'] as const) expectError(await admin.call(op, { token: userToken }), 401, 'UNAUTHORIZED');
    });
  });
};

export default dataIntegritySuite;
export const secrets = [PLAIN_PASSWORD];
