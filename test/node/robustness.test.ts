import { count, lt } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSessions } from '../../src/db/schema/index.js';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';
import { storeFixtures, unique } from '../shared/auth-fixtures.js';
import { robustnessSuite } from '../shared/robustness.suite.js';

let t: NodeTestApp;
beforeAll(async () => {
  t = await createNodeTestApp();
});
afterAll(() => t?.close());

// Counts PBKDF2 derivations with a real (non-zero) salt: each is one stored password checked.
let checked = 0;
const subtle = crypto.subtle;
const deriveBits = subtle.deriveBits.bind(subtle);
(subtle as { deriveBits: unknown }).deriveBits = (algorithm: Parameters<typeof deriveBits>[0] & { salt?: BufferSource }, key: CryptoKey, length: number) => {
  const salt = algorithm.salt as Uint8Array | undefined;
  if (salt && new Uint8Array(salt.buffer, salt.byteOffset, salt.byteLength).some((b) => b !== 0)) checked++;
  return deriveBits(algorithm, key, length);
};

robustnessSuite(() => t.client, () => storeFixtures(t.deps.db), { rounds: 5, checkedHashes: () => checked });

describe('expired API sessions', () => {
  let s: NodeTestApp;
  beforeAll(async () => {
    s = await createNodeTestApp();
  });
  afterAll(() => s?.close());

  it('are swept as fast as logins create them: 6,000 expired rows are gone within 20 logins over 20 s', async () => {
    const fx = storeFixtures(s.deps.db);
    const { identityId, authenticatorId } = await fx.createUser({ username: unique('sweep'), password: 'right-password' });
    const old = s.deps.now() - 2 * 3600_000;
    const rows = Array.from({ length: 6000 }, (_, i) => ({ id: `expired-${i}`, createdAt: old, updatedAt: old, tags: '{}', tokenHash: crypto.randomUUID(), identityId, authenticatorId, lastActivityAt: old + i }));
    for (let i = 0; i < rows.length; i += 500) await s.deps.db.insert(apiSessions).values(rows.slice(i, i + 500));
    const expired = async () => (await s.deps.db.select({ n: count() }).from(apiSessions).where(lt(apiSessions.lastActivityAt, s.deps.now() - 1800_000)))[0].n;
    expect(await expired()).toBe(6000);
    for (let i = 0; i < 20; i++) {
      await s.client.login();
      s.advance(1000);
    }
    expect(await expired()).toBe(0);
    // Live sessions are untouched.
    expect((await s.deps.db.select({ n: count() }).from(apiSessions))[0].n).toBe(20);
  });
});
