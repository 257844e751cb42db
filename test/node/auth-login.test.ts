import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticators } from '../../src/db/schema/index.js';
import { ADMIN_PASSWORD } from '../helpers/client.js';
import { createNodeTestApp, recordReplies, type NodeTestApp } from '../helpers/node-app.js';
import { storeFixtures } from '../shared/auth-fixtures.js';
import { authIdentitySuite } from '../shared/auth-identity.suite.js';
import { authLoginSuite } from '../shared/auth-login.suite.js';

let t: NodeTestApp;
/** Every response (headers and body) the suites received. */
const seen: string[] = [];
beforeAll(async () => {
  t = await createNodeTestApp();
  recordReplies(t.client, seen);
});
afterAll(() => t?.close());

authLoginSuite(() => t.client);
authIdentitySuite(() => t.client, () => storeFixtures(t.deps.db));

describe('secrets', () => {
  it('never appear in a response or a log line: no password, no hash, no salt', async () => {
    expect(seen.length).toBeGreaterThan(100);
    expect(t.logs.length).toBeGreaterThan(0);
    const hashes = (await t.deps.db.select({ h: authenticators.passwordHash }).from(authenticators)).map((r) => r.h!).filter(Boolean);
    const secrets = [
      ADMIN_PASSWORD,
      'first-Passw0rd!',
      'second-Passw0rd!',
      'wrong-password',
      'not-the-password',
      'Much-Better-Passw0rd',
      'new-password-1',
      'guess-number-',
      'another-pass',
      'pbkdf2-sha256',
      ...hashes.flatMap((h) => h.split('$').slice(2)),
    ];
    for (const text of [...seen, ...t.logs]) {
      for (const secret of secrets) expect(text.includes(secret), `${secret} in ${text.slice(0, 200)}`).toBe(false);
    }
  });
});
