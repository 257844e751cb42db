import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT } from '../helpers/client.js';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';
import { storeFixtures, unique } from '../shared/auth-fixtures.js';
import { generateCases, runCases, type Role } from '../shared/fuzz.js';

/** The seeded fuzzer over every operation of both APIs and three callers (test/shared/fuzz.ts). FUZZ_SEED replays a run. */
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const BUDGET_MS = 100_000;

let t: NodeTestApp;
const tokens: Record<Role, string | undefined> = { anonymous: undefined, user: undefined, admin: undefined };
let user: { username: string; password: string };
beforeAll(async () => {
  t = await createNodeTestApp();
  user = { username: unique('fuzz-user'), password: 'fuzz-user-password' };
  await storeFixtures(t.deps.db).createUser(user);
  tokens.admin = await t.client.login();
  tokens.user = await t.client.login(user.username, user.password);
  // A first failed login creates the attempts row every failure then touches, before the store is watched.
  await t.client.request(`${CLIENT}/authenticate?method=password`, { body: { username: 'nobody-at-all', password: 'nothing-at-all' } });
});
afterAll(() => t?.close());

describe('fuzz', () => {
  it(`every operation, three callers, hostile bodies, parameters and headers (seed ${SEED})`, { timeout: BUDGET_MS + 60_000 }, async () => {
    const cases = generateCases(SEED, { rounds: 4 });
    expect(cases.length).toBeGreaterThan(6000);
    const run = await runCases(cases, {
      client: t.client,
      db: t.deps.db,
      tokens,
      relogin: async (role) => (role === 'admin' ? t.client.login() : role === 'user' ? t.client.login(user.username, user.password) : undefined),
    }, BUDGET_MS);
    console.log(`fuzz: ${run.cases} of ${cases.length} cases in ${run.seconds} s, statuses ${JSON.stringify(run.byStatus)}`);
    expect(run.cases).toBeGreaterThanOrEqual(Math.min(cases.length, 3000));
  });
});
