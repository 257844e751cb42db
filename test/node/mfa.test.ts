import { Secret, TOTP, URI } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSessions, mfas } from '../../src/db/schema/index.js';
import { newSessionToken } from '../../src/auth/session-token.js';
import { cuid } from '../../src/lib/ids.js';
import { decrypt, deriveStorageKey } from '../../src/pki/secrets.js';
import { CLIENT } from '../helpers/client.js';
import { createNodeTestApp, recordReplies, type NodeTestApp } from '../helpers/node-app.js';
import { storeFixtures, unique } from '../shared/auth-fixtures.js';
import mfaSuite from '../shared/mfa.suite.js';

let t: NodeTestApp;
/** Every response (headers and body) the suite received. */
const seen: string[] = [];
beforeAll(async () => {
  t = await createNodeTestApp();
  recordReplies(t.client, seen);
});
afterAll(() => t?.close());

mfaSuite({ runtime: 'node', client: () => t.client, db: () => t.deps.db, jwks: () => { throw new Error('the MFA suite uses no JWKS'); } });

describe('MFA secrets', () => {
  it('never appear in a log line, and in responses only where enrolment and recovery codes show them', async () => {
    const key = await deriveStorageKey(t.deps.config.controllerSecret);
    const rows = await t.deps.db.select().from(mfas);
    expect(rows.length).toBeGreaterThan(3);
    const text = async (s: string) => new TextDecoder().decode(await decrypt(key, s));
    for (const row of rows) {
      const secret = await text(row.secret);
      const codes = JSON.parse(await text(row.recoveryCodes)) as string[];
      for (const line of t.logs) {
        expect(line.includes(secret)).toBe(false);
        for (const c of codes) expect(line.includes(`${c}`), line.slice(0, 200)).toBe(false);
      }
      // The secret is shown only inside the provisioning URL of an unverified enrolment.
      for (const reply of seen.filter((r) => r.includes(secret))) expect(reply).toContain(`secret=${secret}`);
    }
  });
});

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * `POST /authenticate/mfa` latency, in-process against a libSQL file. Skipped unless MFA_PERF=1:
 * `MFA_PERF=1 npx vitest run --project node test/node/mfa.test.ts -t latency`. Codes are single use
 * (ADR 0004), so the app's clock moves one step per call and each call gets a fresh partial session.
 */
describe.skipIf(!process.env.MFA_PERF)('MFA performance (Node, in-process)', () => {
  it('POST /authenticate/mfa latency', async () => {
    const username = unique('perf');
    const { identityId, authenticatorId } = await storeFixtures(t.deps.db).createUser({ username, password: 'perf-Passw0rd!' });
    const token = (await t.client.request(`${CLIENT}/authenticate?method=password`, { body: { username, password: 'perf-Passw0rd!' } })).body.data.token;
    await t.client.request(`${CLIENT}/current-identity/mfa`, { method: 'POST', token });
    const url = (await t.client.get(`${CLIENT}/current-identity/mfa`, token)).body.data.provisioningUrl as string;
    const totp = new TOTP({ secret: Secret.fromBase32((URI.parse(url) as TOTP).secret.base32), algorithm: 'SHA1', digits: 6, period: 30 });
    expect((await t.client.request(`${CLIENT}/current-identity/mfa/verify`, { body: { code: totp.generate({ timestamp: t.deps.now() }) }, token })).status).toBe(200);

    const samples: number[] = [];
    // The same loop's GET and DELETE /current-api-session (one read; one write) as yardsticks for the machine and the store.
    const reads: number[] = [];
    const writes: number[] = [];
    for (let i = 0; i < 400; i++) {
      t.advance(30_000);
      const now = t.deps.now();
      const { token: sessionToken, tokenHash } = await newSessionToken();
      await t.deps.db.insert(apiSessions).values({ id: cuid(), createdAt: now, updatedAt: now, tags: '{}', tokenHash, identityId, authenticatorId, isMfaRequired: true, lastActivityAt: now });
      const code = totp.generate({ timestamp: now });
      const readStart = performance.now();
      expect((await t.client.get(`${CLIENT}/current-api-session`, sessionToken)).status).toBe(200);
      if (i >= 50) reads.push(performance.now() - readStart);
      const start = performance.now();
      const reply = await t.client.request(`${CLIENT}/authenticate/mfa`, { body: { code }, token: sessionToken });
      const elapsed = performance.now() - start;
      expect(reply.status, reply.text).toBe(200);
      if (i >= 50) samples.push(elapsed);
      // Logout, one single-row write: what any write request costs on this store.
      const writeStart = performance.now();
      expect((await t.client.request(`${CLIENT}/current-api-session`, { method: 'DELETE', token: sessionToken })).status).toBe(200);
      if (i >= 50) writes.push(performance.now() - writeStart);
    }
    for (const [name, list] of [['POST /authenticate/mfa (TOTP)', samples], ['GET /current-api-session (same sessions)', reads], ['DELETE /current-api-session (same sessions)', writes]] as const) {
      list.sort((a, b) => a - b);
      const total = list.reduce((a, b) => a + b, 0);
      console.log(
        `${name}: p50 ${percentile(list, 50).toFixed(3)} ms, p95 ${percentile(list, 95).toFixed(3)} ms, p99 ${percentile(list, 99).toFixed(3)} ms, ${(list.length / (total / 1000)).toFixed(0)} req/s sequential`,
      );
    }
  }, 120_000);
});
