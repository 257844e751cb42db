import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticators } from '../../src/db/schema/index.js';
import { ADMIN_PASSWORD } from '../helpers/client.js';
import { createNodeTestApp, recordReplies, type NodeTestApp } from '../helpers/node-app.js';
import { identitiesAuthSuite } from '../shared/identities-auth.suite.js';
import { identitiesSuite } from '../shared/identities.suite.js';

let t: NodeTestApp;
/** Every response (headers and body) the suites received. */
const seen: string[] = [];
beforeAll(async () => {
  t = await createNodeTestApp();
  recordReplies(t.client, seen);
});
afterAll(() => t?.close());

identitiesSuite(() => t.client);
identitiesAuthSuite(() => t.client);

describe('secrets in identity management', () => {
  it('never appear in a response or a log line: no password, no hash, no salt', async () => {
    expect(seen.length).toBeGreaterThan(100);
    const hashes = (await t.deps.db.select({ h: authenticators.passwordHash }).from(authenticators)).map((r) => r.h!).filter(Boolean);
    expect(hashes.length).toBeGreaterThan(5);
    const secrets = [ADMIN_PASSWORD, 'first-Passw0rd!', 'pass-word-1', 'brand-new-pass', 'patched-pass', 'pbkdf2-sha256', ...hashes.flatMap((h) => h.split('$').slice(2))];
    for (const text of [...seen, ...t.logs]) {
      for (const secret of secrets) expect(text.includes(secret), `${secret} in ${text.slice(0, 200)}`).toBe(false);
    }
  });
});
