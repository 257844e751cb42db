import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enableIdentityStatements } from '../../src/auth/lockout.js';
import { authGuards } from '../../src/auth/rate-limit.js';
import { atomic } from '../../src/db/client.js';
import { hashSessionToken } from '../../src/auth/session-token.js';
import { apiSessions, authAttempts, identities } from '../../src/db/schema/index.js';
import { CLIENT, MGMT, type TestClient } from '../helpers/client.js';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';
import { storeFixtures, unique } from '../shared/auth-fixtures.js';

/** Node-only behaviour that needs the test app's clock, its store or a second instance. */

const MINUTE = 60_000;

function loginReply(client: TestClient, username: string, password: string, ip = '192.0.2.50') {
  return client.request(`${CLIENT}/authenticate?method=password`, { body: { username, password }, headers: { 'cf-connecting-ip': ip } });
}

describe('inactivity expiry and activity writes', () => {
  let t: NodeTestApp;
  const writes: string[] = [];
  beforeAll(async () => {
    t = await createNodeTestApp();
    // Count the statements that reach the store (drizzle calls client.execute for single statements).
    const execute = t.libsql!.execute.bind(t.libsql) as (stmt: unknown) => Promise<unknown>;
    (t.libsql as { execute: unknown }).execute = (stmt: string | { sql: string }) => {
      const text = typeof stmt === 'string' ? stmt : stmt.sql;
      if (/^update "api_sessions"/i.test(text)) writes.push(text);
      return execute(stmt);
    };
  });
  afterAll(() => t?.close());

  it('writes activity at most once a minute per session, however many requests', async () => {
    const token = await t.client.login();
    writes.length = 0;
    for (let i = 0; i < 5; i++) expect((await t.client.get(`${CLIENT}/current-api-session`, token)).status).toBe(200);
    expect(writes).toHaveLength(0);
    t.advance(MINUTE + 1000);
    for (let i = 0; i < 5; i++) expect((await t.client.get(`${MGMT}/current-identity`, token)).status).toBe(200);
    expect(writes).toHaveLength(1);
    t.advance(30_000);
    await t.client.get(`${CLIENT}/current-api-session`, token);
    expect(writes).toHaveLength(1);
    t.advance(31_000);
    const reply = await t.client.get(`${CLIENT}/current-api-session`, token);
    expect(writes).toHaveLength(2);
    expect(Date.parse(reply.body.data.lastActivityAt)).toBe(Date.parse(reply.body.data.updatedAt));
  });

  it('expires a session after 30 minutes without activity, sliding with each recorded activity', async () => {
    const token = await t.client.login();
    t.advance(25 * MINUTE);
    const alive = await t.client.get(`${CLIENT}/current-api-session`, token);
    expect(alive.status).toBe(200);
    // The activity of that request moved the expiry.
    expect(Date.parse(alive.body.data.expiresAt) - t.deps.now()).toBeGreaterThan(29 * MINUTE);
    t.advance(25 * MINUTE);
    expect((await t.client.get(`${CLIENT}/current-api-session`, token)).status).toBe(200);
    t.advance(30 * MINUTE + 1000);
    const expired = await t.client.get(`${CLIENT}/current-api-session`, token);
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('UNAUTHORIZED');
    // The expired session is deleted on sight.
    const rows = await t.deps.db.select().from(apiSessions).where(eq(apiSessions.tokenHash, await hashSessionToken(token)));
    expect(rows).toHaveLength(0);
  });

  it('sweeps expired sessions nobody looks up again, and never lists them', async () => {
    const admin = await t.client.login();
    const stale = [await t.client.login(), await t.client.login()];
    t.advance(31 * MINUTE);
    // Keep the admin session alive across the jump by logging in again.
    const fresh = await t.client.login();
    expect((await t.client.get(`${CLIENT}/current-api-session`, admin)).status).toBe(401);
    const left = await t.deps.db.select({ tokenHash: apiSessions.tokenHash }).from(apiSessions);
    for (const token of stale) expect(left.map((r) => r.tokenHash)).not.toContain(await hashSessionToken(token));
    const list = await t.client.get(`${MGMT}/api-sessions?limit=500`, fresh);
    expect(list.body.data.every((s: { lastActivityAt: string }) => Date.parse(s.lastActivityAt) > t.deps.now() - 30 * MINUTE)).toBe(true);
  });
});

describe('lockout shared by two instances of one store', () => {
  let dir: string;
  let a: NodeTestApp;
  let b: NodeTestApp;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ziti-lockout-'));
    const dbFile = join(dir, 'shared.db');
    a = await createNodeTestApp({}, { dbFile });
    b = await createNodeTestApp({}, { dbFile });
  });
  afterAll(() => {
    a?.close();
    b?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts failures on every instance and holds the lock on every instance', async () => {
    const fx = storeFixtures(a.deps.db);
    const policy = await fx.createAuthPolicy({ updbMaxAttempts: 2, updbLockoutDurationMinutes: 10 });
    const username = unique('shared');
    const user = await fx.createUser({ username, password: 'right-password', authPolicyId: policy });
    const tokenOnB = (await loginReply(b.client, username, 'right-password')).body.data.token;

    expect((await loginReply(a.client, username, 'wrong-password', '192.0.2.61')).status).toBe(401);
    expect((await loginReply(b.client, username, 'wrong-password', '192.0.2.62')).status).toBe(401);
    expect((await loginReply(a.client, username, 'wrong-password', '192.0.2.63')).status).toBe(401);

    for (const app of [a, b]) {
      const reply = await loginReply(app.client, username, 'right-password', '192.0.2.64');
      expect(reply.status).toBe(401);
      expect(reply.body.error.code).toBe('INVALID_AUTH');
    }
    expect((await b.client.get(`${CLIENT}/current-api-session`, tokenOnB)).status).toBe(401);
    const [row] = await b.deps.db.select().from(identities).where(eq(identities.id, user.identityId));
    expect(row.disabledUntil! - row.disabledAt!).toBe(10 * MINUTE);

    // Ten minutes later, on either instance, the identity is usable again.
    a.advance(10 * MINUTE + 1000);
    expect((await loginReply(a.client, username, 'right-password', '192.0.2.65')).status).toBe(200);
  });

  it('forgets failed attempts when an admin enables the identity', async () => {
    const fx = storeFixtures(a.deps.db);
    const policy = await fx.createAuthPolicy({ updbMaxAttempts: 5 });
    const username = unique('enable');
    const user = await fx.createUser({ username, password: 'right-password', authPolicyId: policy });
    expect((await loginReply(b.client, username, 'wrong-password', '192.0.2.71')).status).toBe(401);
    expect(await a.deps.db.select().from(authAttempts).where(eq(authAttempts.authenticatorId, user.authenticatorId))).toHaveLength(1);
    // What the management enable runs in its batch.
    const db = a.deps.db;
    await atomic(db, [db.update(identities).set({ disabledAt: null, disabledUntil: null }).where(eq(identities.id, user.identityId)), ...enableIdentityStatements(db, user.identityId)]);
    expect(await a.deps.db.select().from(authAttempts).where(eq(authAttempts.authenticatorId, user.authenticatorId))).toHaveLength(0);
  });
});

describe('login concurrency limit', () => {
  let t: NodeTestApp;
  beforeAll(async () => {
    t = await createNodeTestApp({ ZITI_AUTH_CONCURRENCY: '1' });
  });
  afterAll(() => t?.close());

  it('answers 429 SERVER_TOO_MANY_REQUESTS while the in-flight limit is used up', async () => {
    const { limiter } = authGuards(t.deps, t.deps.config.authConcurrencyLimit);
    expect(limiter.limit).toBe(1);
    let release!: () => void;
    const held = limiter.run(() => new Promise<void>((resolve) => (release = resolve)));
    const refused = await t.client.request(`${CLIENT}/authenticate?method=password`, { body: { username: 'admin', password: 'admin-password-for-tests' } });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('SERVER_TOO_MANY_REQUESTS');
    expect(refused.headers.get('zt-session')).toBeNull();
    release();
    await held;
    expect(limiter.active).toBe(0);
    expect((await t.client.request(`${CLIENT}/authenticate?method=password`, { body: { username: 'admin', password: 'admin-password-for-tests' } })).status).toBe(200);
  });

  it('refuses logins beyond the limit under real concurrency and serves the rest', async () => {
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => t.client.request(`${MGMT}/authenticate?method=password`, { body: { username: 'admin', password: 'admin-password-for-tests' } })),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses).toContain(200);
    expect(statuses).toContain(429);
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
  });
});
