/**
 * The operator endpoints on the Node entry (embedded file through the native driver):
 * - `POST /database/snapshot`: a copy next to the database that opens as a valid SQLite database with the
 *   same rows, private like the database, reported in the log; one a minute; the server serves and writes
 *   while and after it is taken;
 * - the data-integrity check and the cached totals, whose hand-written queries the native driver reads
 *   by column name as the other drivers do.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeStoreOperations } from '../../src/db/node-store.js';
import { startController, type NodeController } from '../../src/node.js';
import { createNodeTestApp } from '../helpers/node-app.js';

const PASSWORD = 'admin-password-for-tests';

interface Answer {
  status: number;
  body: any;
}

describe('operations on the Node entry', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-snapshot-'));
  const logs: { message: string; fields?: Record<string, unknown> }[] = [];
  const logger = { info: (message: string, fields?: Record<string, unknown>) => void logs.push({ message, fields }), warn: () => undefined, error: () => undefined };
  let controller: NodeController;
  let token = '';

  function call(method: string, path: string, body?: unknown): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string> = { ...(payload ? { 'content-type': 'application/json' } : {}), ...(token ? { 'zt-session': token } : {}) };
      const req = request({ host: '127.0.0.1', servername: 'localhost', port: controller.port, path, method, headers, ca: controller.bootstrap.pki.root.pem }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  beforeAll(async () => {
    controller = await startController({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', ADMIN_PASSWORD: PASSWORD }, { logger });
    const login = await call('POST', '/edge/management/v1/authenticate?method=password', { username: 'admin', password: PASSWORD });
    token = login.body.data.token;
    for (let i = 0; i < 5; i++) expect((await call('POST', '/edge/management/v1/identities', { name: `snap-${i}`, type: 'User', isAdmin: false, roleAttributes: ['snap'] })).status).toBe(201);
    expect((await call('POST', '/edge/management/v1/services', { name: 'snap-svc', encryptionRequired: true, roleAttributes: ['snap'] })).status).toBe(201);
    expect((await call('POST', '/edge/management/v1/service-policies', { name: 'snap-sp', type: 'Dial', semantic: 'AllOf', identityRoles: ['#snap'], serviceRoles: ['#snap'] })).status).toBe(201);
  });
  afterAll(async () => {
    await controller?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes a consistent copy next to the database that opens with the same rows, and logs where', async () => {
    const reply = await call('POST', '/edge/management/v1/database/snapshot');
    expect(reply.status).toBe(200);
    const path: string = reply.body.data.path;
    expect(path).toMatch(/controller\.snapshot-\d{8}-\d{6}\.db$/);
    expect(dirname(path)).toBe(dir);
    expect(existsSync(path)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(logs.filter((l) => l.message === 'database snapshot written').map((l) => l.fields?.path)).toEqual([path]);

    const copy = new Database(path, { readonly: true });
    const live = controller.store.native!.native;
    try {
      expect(copy.prepare('PRAGMA integrity_check').raw(true).all()).toEqual([['ok']]);
      const tables = (copy.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").raw(true).all() as string[][]).map((r) => r[0]);
      const liveTables = (live.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").raw(true).all() as string[][]).map((r) => r[0]);
      expect(tables).toEqual(liveTables);
      expect(tables).toEqual(expect.arrayContaining(['identities', 'policy_links', 'pki_material', '__drizzle_migrations']));
      // The same rows, table by table (the snapshot request itself wrote only the rate-limit slot).
      for (const table of tables) {
        const rows = (db: InstanceType<typeof Database>) => db.prepare(`SELECT * FROM "${table}" ORDER BY 1, 2`).raw(true).all();
        if (table === 'operation_slots' || table === 'api_sessions') continue;
        expect(rows(copy), table).toEqual(rows(live));
      }
      // Sessions: the same ones (their last activity may be recorded after the copy).
      const sessions = (db: InstanceType<typeof Database>) => db.prepare('SELECT id FROM api_sessions ORDER BY id').raw(true).all();
      expect(sessions(copy)).toEqual(sessions(live));
      const count = (db: InstanceType<typeof Database>, sql: string) => (db.prepare(sql).raw(true).get() as number[])[0];
      expect(count(copy, "SELECT count(*) FROM identities WHERE name LIKE 'snap-%'")).toBe(5);
      expect(count(copy, 'SELECT count(*) FROM policy_links')).toBe(6);
    } finally {
      copy.close();
    }
  });

  it('checks a store written through the API clean, and reads exact totals, over the native driver', async () => {
    const id = (await call('GET', `/edge/management/v1/identities?filter=${encodeURIComponent('name = "snap-0"')}`)).body.data[0].id;
    for (let i = 0; i < 2; i++) {
      // The second read is served from the cached total.
      const services = await call('GET', `/edge/management/v1/identities/${id}/services`);
      expect(services.body.meta.pagination.totalCount).toBe(1);
    }
    expect((await call('POST', '/edge/management/v1/database/check-data-integrity')).status).toBe(202);
    let results = await call('GET', '/edge/management/v1/database/data-integrity-results');
    for (let i = 0; i < 200 && results.body.data.inProgress; i++) {
      await new Promise((r) => setTimeout(r, 25));
      results = await call('GET', '/edge/management/v1/database/data-integrity-results');
    }
    expect(results.body.data).toMatchObject({ inProgress: false, error: '', results: [], tooManyErrors: false });
    // A corrupted total is found by name too.
    controller.store.native!.native.exec(`UPDATE access_counts SET total = total + 1 WHERE identity_id = '${id}'`);
    expect((await call('POST', '/edge/management/v1/database/check-data-integrity')).status).toBe(202);
    do {
      await new Promise((r) => setTimeout(r, 25));
      results = await call('GET', '/edge/management/v1/database/data-integrity-results');
    } while (results.body.data.inProgress);
    expect(results.body.data.results).toEqual([{ description: `cached service total of identity ${id} (bind,dial) is 2, its policy links give 1`, fixed: false }]);
  });

  it('takes at most one a minute, and the server goes on writing', async () => {
    const again = await call('POST', '/edge/management/v1/database/snapshot');
    expect(again.status).toBe(429);
    expect(again.body.error.code).toBe('RATE_LIMITED');
    expect(readdirSync(dir).filter((f) => f.includes('.snapshot-'))).toHaveLength(1);
    expect((await call('POST', '/edge/management/v1/identities', { name: 'after-snapshot', type: 'User', isAdmin: false })).status).toBe(201);
  });
});

describe('snapshots of a remote libSQL store', () => {
  it('answer 409 SNAPSHOT_NOT_SUPPORTED with the platform restore for this moment, and take no slot', async () => {
    const t = await createNodeTestApp();
    try {
      // What the Node entry gives a store opened from a remote LIBSQL_URL.
      t.deps.operations = nodeStoreOperations({ db: t.deps.db, location: 'example-db.turso.io', close: () => undefined });
      const token = await t.client.login();
      for (let i = 0; i < 2; i++) {
        const before = Date.now();
        const reply = await t.client.request('/edge/management/v1/database/snapshot', { method: 'POST', token });
        expect(reply.status).toBe(409);
        expect(reply.body.error.code).toBe('SNAPSHOT_NOT_SUPPORTED');
        const message: string = reply.body.error.cause.message;
        expect(message).toContain('turso db create <new-name> --from-db <database> --timestamp');
        const moment = Date.parse(/point-in-time restore for (\S+)/.exec(message)![1]);
        expect(moment).toBeGreaterThanOrEqual(before - 1);
        expect(moment).toBeLessThanOrEqual(Date.now());
      }
      expect(t.logs.some((l) => l.includes('database snapshot'))).toBe(false);
    } finally {
      t.close();
    }
  });
});
