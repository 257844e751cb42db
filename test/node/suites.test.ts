import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticators } from '../../src/db/schema/index.js';
import { ADMIN_PASSWORD } from '../helpers/client.js';
import { createNodeTestApp, recordReplies, type NodeTestApp } from '../helpers/node-app.js';
import type { Suite } from '../shared/suite.js';
import { startJwksServer } from './jwks-server.js';

/**
 * Every shared suite with a default export, on Node: the app in-process on a temporary libSQL file. Every
 * reply and log line of every suite is recorded, and at the end none may contain a secret: the passwords
 * suites declare (`export const secrets`), the default admin's, and every stored hash and salt.
 */
const suites = import.meta.glob<{ default?: Suite; secrets?: string[] }>('../shared/*.suite.ts', { eager: true });

let t: NodeTestApp;
let jwks: Awaited<ReturnType<typeof startJwksServer>>;
const seen: string[] = [];
beforeAll(async () => {
  // The test identity provider listens on 127.0.0.1 over http: the one setting that permits it.
  // The embedded native store: the one `npm start` runs on.
  t = await createNodeTestApp({ ZITI_JWKS_ALLOW_PRIVATE: 'true', ZITI_JWKS_TIMEOUT_MS: '1000', ZITI_OIDC_REVOCATION_POLL_MS: '1000' }, { store: 'native' });
  recordReplies(t.client, seen);
  jwks = await startJwksServer();
});
afterAll(async () => {
  t?.close();
  await jwks?.close();
});

for (const [file, module] of Object.entries(suites)) {
  if (module.default) describe(file.replace(/^.*\/|\.suite\.ts$/g, ''), () => module.default!({ runtime: 'node', client: () => t.client, db: () => t.deps.db, jwks: () => jwks }));
}

describe('secrets', () => {
  it('never appear in a reply or a log line of any suite: no password, no hash, no salt', async () => {
    expect(seen.length).toBeGreaterThan(100);
    const hashes = (await t.deps.db.select({ h: authenticators.passwordHash }).from(authenticators)).map((r) => r.h!).filter(Boolean);
    expect(hashes.length).toBeGreaterThan(5);
    const declared = Object.values(suites).flatMap((m) => m.secrets ?? []);
    const secrets = [ADMIN_PASSWORD, 'pbkdf2-sha256', ...declared, ...hashes.flatMap((h) => h.split('$').slice(2))];
    // One assertion over every (text, secret) pair: an expect per pair takes longer than the suites.
    const leaks: string[] = [];
    for (const text of [...seen, ...t.logs]) {
      for (const secret of secrets) if (text.includes(secret)) leaks.push(`${secret} in ${text.slice(0, 200)}`);
    }
    expect(leaks).toEqual([]);
  });
});
