/**
 * The embedded store on Node (src/db/native.ts, src/db/node-store.ts): the real app over the native
 * driver, statements kept per connection, atomic batches and unique indexes under 50 concurrent
 * attempts, API-session tokens stored hashed, WAL, and private file modes.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { bootstrapStore } from '../../src/bootstrap.js';
import { parseConfig } from '../../src/config.js';
import { atomic } from '../../src/db/client.js';
import { openStore, type NodeStore } from '../../src/db/node-store.js';
import { apiSessions, identities } from '../../src/db/schema/index.js';
import type { Deps, Runtime } from '../../src/deps.js';
import { MIGRATIONS_DIR } from '../../src/node.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, CLIENT, MGMT, TestClient } from '../helpers/client.js';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

interface Fixture {
  dir: string;
  store: NodeStore;
  client: TestClient;
  deps: Deps;
  statements: string[];
}

async function nativeApp(): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-native-'));
  const dataDir = join(dir, 'data');
  const statements: string[] = [];
  const { prepareDataDir } = await import('../../src/db/node-store.js');
  prepareDataDir(dataDir);
  const store = await openStore({ dataDir, migrationsFolder: MIGRATIONS_DIR, queryLogger: { logQuery: (sql) => void statements.push(sql) } });
  const config = parseConfig({ CONTROLLER_SECRET: 'test-controller-secret-0123456789', ZITI_API_ADDRESS: 'localhost:1280' }, 'node-test');
  const { pki } = await bootstrapStore(store.db, config, { username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
  const deps: Deps = { db: store.db, config, pki, log: quiet, now: () => Date.now() };
  const pending: Promise<unknown>[] = [];
  const runtime: Runtime = { deps: async () => deps, clientCertificate: () => undefined, waitUntil: (p) => void pending.push(p) };
  const app = createApp(runtime);
  const client = new TestClient(async (req) => {
    const res = await app.fetch(req, {});
    await Promise.all(pending.splice(0));
    return res;
  });
  return { dir, store, client, deps, statements };
}

describe('the embedded store on the native driver', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await nativeApp();
  });
  afterAll(() => {
    f.store.close();
    rmSync(f.dir, { recursive: true, force: true });
  });

  it('serves login, the session check and identity CRUD through the app', async () => {
    const token = await f.client.login();
    const current = await f.client.get(`${CLIENT}/current-api-session`, token);
    expect(current.status).toBe(200);
    expect(current.body.data.token).toBe(token);
    const created = await f.client.request(`${MGMT}/identities`, { token, body: { name: 'native-one', type: 'User', isAdmin: false } });
    expect(created.status).toBe(201);
    const listed = await f.client.get(`${MGMT}/identities?filter=${encodeURIComponent('name = "native-one"')}`, token);
    expect(listed.body.data.map((i: { name: string }) => i.name)).toEqual(['native-one']);
    expect(listed.body.meta.pagination.totalCount).toBe(1);
  });

  it('stores the SHA-256 of a session token, never the token, and shows the token only to its caller', async () => {
    const token = await f.client.login();
    const other = await f.client.login();
    const rows = await f.store.db.select().from(apiSessions);
    const expected = createHash('sha256').update(token).digest('hex');
    expect(rows.map((r) => r.tokenHash)).toContain(expected);
    // No column of any session row holds a token in plain text.
    const dump = JSON.stringify(f.store.native!.native.prepare('SELECT * FROM api_sessions').raw(true).all());
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(other);
    const list = await f.client.get(`${MGMT}/api-sessions?limit=500`, token);
    const shown = list.body.data.filter((s: { token: string }) => s.token !== '').map((s: { token: string }) => s.token);
    expect(shown).toEqual([token]);
  });

  it('lists API sessions, paged, with their total and identity names, in one statement besides the session check', async () => {
    const token = await f.client.login();
    const live = (await f.store.db.select().from(apiSessions)).length;
    f.statements.length = 0;
    const page = await f.client.get(`${MGMT}/api-sessions?limit=2&offset=1`, token);
    expect(page.status).toBe(200);
    expect(page.body.meta.pagination.totalCount).toBe(live);
    expect(page.body.data).toHaveLength(Math.min(2, live - 1));
    expect(page.body.data.every((s: { identity: { name: string } }) => s.identity.name === 'Default Admin')).toBe(true);
    expect(f.statements.filter((s) => /^select/i.test(s))).toHaveLength(2);
    const past = await f.client.get(`${MGMT}/api-sessions?offset=400`, token);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta.pagination.totalCount).toBe(live);
  });

  it('keeps each statement prepared: repeated requests add no statement to the cache', async () => {
    const token = await f.client.login();
    for (let i = 0; i < 3; i++) await f.client.get(`${CLIENT}/current-identity`, token);
    const before = f.store.native!.cachedStatements();
    f.statements.length = 0;
    for (let i = 0; i < 20; i++) expect((await f.client.get(`${CLIENT}/current-identity`, token)).status).toBe(200);
    expect(f.statements.length).toBeGreaterThan(0);
    expect(f.store.native!.cachedStatements()).toBe(before);
  });

  it('answers GET /current-identity from the session check alone, its rider read in the same statement', async () => {
    const token = await f.client.login();
    await f.client.get(`${CLIENT}/current-identity`, token);
    f.statements.length = 0;
    const reply = await f.client.get(`${MGMT}/current-identity`, token);
    expect(reply.status).toBe(200);
    expect(f.statements).toHaveLength(1);
    expect(f.statements[0]).toMatch(/"api_sessions"\."token_hash" = \?/);
    const [admin] = await f.deps.db.select().from(identities).where(eq(identities.isDefaultAdmin, true));
    expect(reply.body.data).toMatchObject({ id: admin.id, name: admin.name, isAdmin: true, isDefaultAdmin: true, hasApiSession: true, isMfaEnabled: false });
    expect(reply.body.data.authenticators.updb.username).toBe(ADMIN_USERNAME);
    // Every other authenticated operation keeps the narrow session check, without the rider's columns.
    f.statements.length = 0;
    await f.client.get(`${CLIENT}/current-api-session`, token);
    expect(f.statements).toHaveLength(1);
    expect(f.statements[0]).not.toMatch(/json_group_array/);
  });

  it('reports every statement of a batch to the query logger', async () => {
    f.statements.length = 0;
    await f.client.login();
    expect(f.statements.some((s) => /^insert into "api_sessions"/i.test(s))).toBe(true);
  });

  it('runs 50 concurrent atomic batches, each all or nothing', async () => {
    const now = Date.now();
    const row = (id: string, name: string) => ({ id, name, typeId: 'User', createdAt: now, updatedAt: now, authPolicyId: 'default' });
    // Each batch inserts two identities; odd batches reuse a name taken by batch 0, so they must fail whole.
    await atomic(f.store.db, [f.store.db.insert(identities).values(row('batch-base', 'batch-taken'))]);
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        atomic(f.store.db, [f.store.db.insert(identities).values(row(`batch-a-${i}`, `batch-a-${i}`)), f.store.db.insert(identities).values(row(`batch-b-${i}`, i % 2 ? 'batch-taken' : `batch-b-${i}`))]),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(25);
    const names = (await f.store.db.select({ name: identities.name }).from(identities)).map((r) => r.name);
    for (let i = 0; i < 50; i++) {
      expect(names.includes(`batch-a-${i}`)).toBe(i % 2 === 0);
      expect(names.includes(`batch-b-${i}`)).toBe(i % 2 === 0);
    }
  });

  it('lets exactly one of 50 concurrent creates of one name win, through the unique index', async () => {
    const token = await f.client.login();
    const replies = await Promise.all(Array.from({ length: 50 }, () => f.client.request(`${MGMT}/identities`, { token, body: { name: 'raced-name', type: 'User', isAdmin: false } })));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    expect(replies.filter((r) => r.status >= 500)).toHaveLength(0);
    expect(await f.store.db.select().from(identities).where(eq(identities.name, 'raced-name'))).toHaveLength(1);
  });

  it('runs in WAL mode with a busy timeout, in a private directory and private files', () => {
    expect(f.store.native!.native.prepare('PRAGMA journal_mode').raw(true).get()).toEqual(['wal']);
    expect(Number((f.store.native!.native.prepare('PRAGMA busy_timeout').raw(true).get() as unknown[])[0])).toBeGreaterThan(0);
    const dataDir = join(f.dir, 'data');
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    for (const file of ['controller.db', 'controller.db-wal', 'controller.db-shm']) expect(statSync(join(dataDir, file)).mode & 0o777).toBe(0o600);
    expect(f.store.native!.native.prepare('PRAGMA integrity_check').raw(true).get()).toEqual(['ok']);
  });
});

/**
 * Another process writing the new file in the old journal mode: SQLite refuses the switch to WAL at
 * once (no busy timeout: waiting could deadlock), which is what a second controller started on a new
 * file may meet. The start waits and retries instead of failing.
 */
describe('opening the file while another process holds its write lock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-native-lock-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('waits for the lock, then switches to WAL and migrates', async () => {
    const file = join(dir, 'controller.db');
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require(process.argv[1]))(process.argv[2]);
         db.exec('BEGIN IMMEDIATE'); db.exec('CREATE TABLE held (x)');
         db.exec("INSERT INTO held VALUES (1)");
         process.stdout.write('held\\n');
         setTimeout(() => { db.exec('COMMIT'); db.close(); }, 400);`,
        createRequire(import.meta.url).resolve('libsql'),
        file,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => holder.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve()));
    const started = Date.now();
    const store = await openStore({ dataDir: dir, migrationsFolder: MIGRATIONS_DIR, url: `file:${file}` });
    try {
      expect(Date.now() - started).toBeGreaterThanOrEqual(200);
      expect(store.native!.native.prepare('PRAGMA journal_mode').raw(true).get()).toEqual(['wal']);
      expect(store.native!.native.prepare('SELECT count(*) FROM held').raw(true).get()).toEqual([1]);
      expect(store.native!.native.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'identities'").raw(true).get()).toEqual([1]);
    } finally {
      store.close();
      await new Promise((resolve) => (holder.exitCode === null ? holder.once('exit', resolve) : resolve(null)));
    }
  });
});

