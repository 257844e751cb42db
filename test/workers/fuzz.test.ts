import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { openD1 } from '../../src/db/open.js';
import { CLIENT } from '../helpers/client.js';
import { storeFixtures, unique } from '../shared/auth-fixtures.js';
import { generateCases, runCases, type Role } from '../shared/fuzz.js';
import { workerClient } from './helpers.js';

/** A slice of the seeded fuzzer (test/shared/fuzz.ts) inside workerd with D1: every fifth operation. */
const SEED = 20261124;
const BUDGET_MS = 40_000;
const client = workerClient();
const db = openD1((env as unknown as { DB: D1Database }).DB);
const tokens: Record<Role, string | undefined> = { anonymous: undefined, user: undefined, admin: undefined };
const user = { username: unique('fuzz-user'), password: 'fuzz-user-password' };

beforeAll(async () => {
  await storeFixtures(db).createUser(user);
  tokens.admin = await client.login();
  tokens.user = await client.login(user.username, user.password);
  await client.request(`${CLIENT}/authenticate?method=password`, { body: { username: 'nobody-at-all', password: 'nothing-at-all' } });
});

describe('fuzz on workerd', () => {
  it(`every fifth operation, three callers (seed ${SEED})`, { timeout: BUDGET_MS + 60_000 }, async () => {
    const cases = generateCases(SEED, { every: 5 });
    expect(cases.length).toBeGreaterThan(300);
    const run = await runCases(cases, {
      client,
      db,
      tokens,
      relogin: async (role) => (role === 'admin' ? client.login() : role === 'user' ? client.login(user.username, user.password) : undefined),
    }, BUDGET_MS);
    console.log(`fuzz (workerd): ${run.cases} of ${cases.length} cases in ${run.seconds} s, statuses ${JSON.stringify(run.byStatus)}`);
    expect(run.cases).toBeGreaterThanOrEqual(Math.min(cases.length, 200));
  });
});
