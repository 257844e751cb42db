/**
 * The data-integrity run in slices (docs/adr/0012-operations-integrity-and-snapshots.md): where the
 * runtime gives deferred work little time (Workers' `waitUntil`), each request carries the run forward
 * by at least one slice and gives it back; polling the results carries it to its end, with the same
 * results as a run done in one go.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticators, policyLinks } from '../../src/db/schema/index.js';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';

const MGMT = '/edge/management/v1';

describe('a data-integrity run in slices', () => {
  let t: NodeTestApp;
  let token = '';
  beforeAll(async () => {
    t = await createNodeTestApp();
    token = await t.client.login();
    for (let i = 0; i < 3; i++) {
      expect((await t.client.request(`${MGMT}/identities`, { token, body: { name: `slice-${i}`, type: 'User', isAdmin: false, roleAttributes: ['slice'] } })).status).toBe(201);
    }
    expect((await t.client.request(`${MGMT}/services`, { token, body: { name: 'slice-svc', encryptionRequired: true, roleAttributes: ['slice'] } })).status).toBe(201);
    for (let i = 0; i < 25; i++) {
      const body = { name: `slice-sp-${i}`, type: 'Dial', semantic: 'AllOf', identityRoles: ['#slice'], serviceRoles: ['#slice'] };
      expect((await t.client.request(`${MGMT}/service-policies`, { token, body })).status).toBe(201);
    }
    // Something to find: every link of every policy goes, and an authenticator is orphaned.
    await t.deps.db.delete(policyLinks);
    await t.deps.db.insert(authenticators).values({ id: 'slice-orphan', createdAt: 1, updatedAt: 1, identityId: 'gone', method: 'cert' });
  });
  afterAll(() => t?.close());

  async function results() {
    const reply = await t.client.get(`${MGMT}/database/data-integrity-results`, token);
    expect(reply.status).toBe(200);
    return reply.body.data as { inProgress: boolean; results: { description: string; fixed: boolean }[]; error: string };
  }

  it('moves one slice per request when there is no time for more, and ends with what a run in one go finds', async () => {
    const whole = await t.client.request(`${MGMT}/database/check-data-integrity`, { method: 'POST', token });
    expect(whole.status).toBe(202);
    const expected = await results();
    expect(expected.inProgress).toBe(false);
    // 25 policies × 4 links, the authenticator, and the service's kept set of policies (its links are gone).
    expect(expected.results).toHaveLength(102);

    t.deps.operations = { ...t.deps.operations!, backgroundBudgetMs: 0 };
    try {
      expect((await t.client.request(`${MGMT}/database/check-data-integrity`, { method: 'POST', token })).status).toBe(202);
      let polls = 0;
      let seen = await results();
      while (seen.inProgress) {
        polls += 1;
        expect(polls).toBeLessThan(200);
        seen = await results();
      }
      // Every request carried one slice (a few dozen of them, one or more per checker).
      expect(polls).toBeGreaterThan(20);
      expect(t.logs.filter((l) => l.includes('data integrity run paused')).length).toBe(polls);
      expect(seen.error).toBe('');
      expect(seen.results).toEqual(expected.results);
    } finally {
      t.deps.operations = { ...t.deps.operations!, backgroundBudgetMs: undefined };
    }

    // A fix in slices repairs the lot.
    t.deps.operations = { ...t.deps.operations!, backgroundBudgetMs: 0 };
    expect((await t.client.request(`${MGMT}/database/fix-data-integrity`, { method: 'POST', token })).status).toBe(202);
    let fixed = await results();
    while (fixed.inProgress) fixed = await results();
    // The kept set is examined after the links are repaired: it agrees with them again.
    expect(fixed.results).toHaveLength(101);
    expect(fixed.results.every((r) => r.fixed)).toBe(true);
    t.deps.operations = { ...t.deps.operations!, backgroundBudgetMs: undefined };
    expect((await t.client.request(`${MGMT}/database/check-data-integrity`, { method: 'POST', token })).status).toBe(202);
    expect((await results()).results).toEqual([]);
    expect(await t.deps.db.select().from(authenticators).where(eq(authenticators.id, 'slice-orphan'))).toEqual([]);
    expect(await t.deps.db.select().from(policyLinks)).toHaveLength(100);
  });
});
