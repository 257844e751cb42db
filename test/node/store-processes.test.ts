/**
 * Two controller processes on one embedded file serve a write load without a 500, while a `sqlite3`
 * shell holds a read transaction and another takes an online `.backup` (src/db/native.ts: WAL, busy
 * timeout, BEGIN IMMEDIATE, bounded retry of SQLITE_BUSY). Real processes, real files, loopback.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, closeAgent, freePort, login, startControllerProcess, stopControllerProcess, waitUntilServing, type ControllerProcess } from '../../scripts/lib/controller-process.js';

const hasSqlite3 = spawnSync('sqlite3', ['-version']).status === 0;

describe('two controller processes on one embedded file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-procs-'));
  const dataDir = join(dir, 'data');
  const password = randomBytes(18).toString('base64url');
  const env = { DATA_DIR: dataDir, CONTROLLER_SECRET: randomBytes(24).toString('base64url'), ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: password };
  let a: ControllerProcess;
  let b: ControllerProcess;

  beforeAll(async () => {
    // Started together on a new file: both migrate and bootstrap it, one of them first.
    // Two free loopback ports of the project's test range (13200…13209).
    const first = await freePort();
    const second = await freePort(first + 1, 13210 - first - 1);
    a = startControllerProcess({ ...env, PORT: String(first) });
    b = startControllerProcess({ ...env, PORT: String(second) });
    await Promise.all([waitUntilServing(a, 60_000), waitUntilServing(b, 60_000)]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([a && stopControllerProcess(a), b && stopControllerProcess(b)]);
    closeAgent();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a concurrent write load on both with no 500, beside a sqlite3 reader and a backup', async () => {
    const tokens = await Promise.all([login(a.port, 'admin', password), login(b.port, 'admin', password)]);
    // A shell holding a read transaction open for the whole load.
    const reader = hasSqlite3 ? spawn('sqlite3', [join(dataDir, 'controller.db')], { stdio: ['pipe', 'pipe', 'pipe'] }) : undefined;
    reader?.stdin?.write('BEGIN;\nSELECT count(*) FROM identities;\n');
    const statuses: number[] = [];
    const names: string[] = [];
    const load = async (port: number, token: string, prefix: string) => {
      for (let i = 0; i < 25; i++) {
        const name = `${prefix}-${i}`;
        const reply = await call(port, 'POST', '/edge/management/v1/identities', { token, body: { name, type: 'User', isAdmin: false } });
        statuses.push(reply.status);
        if (reply.status === 201) names.push(name);
        // Logins write too (the session insert).
        statuses.push((await call(port, 'POST', '/edge/client/v1/authenticate?method=password', { body: { username: 'admin', password } })).status);
      }
    };
    const backup = hasSqlite3
      ? new Promise<number | null>((resolve) => {
          setTimeout(() => {
            const p = spawn('sqlite3', [join(dataDir, 'controller.db'), `.backup ${join(dir, 'backup.db')}`], { stdio: 'ignore' });
            p.once('exit', (code) => resolve(code));
          }, 200);
        })
      : Promise.resolve(0);
    await Promise.all([0, 1, 2, 3].flatMap((k) => [load(a.port, tokens[0], `proc-a-${k}`), load(b.port, tokens[1], `proc-b-${k}`)]));
    reader?.stdin?.end('COMMIT;\n.quit\n');
    expect(await backup).toBe(0);

    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.every((s) => s === 200 || s === 201)).toBe(true);
    expect(names).toHaveLength(200);
    const db = new Database(join(dataDir, 'controller.db'));
    const stored = db.prepare("SELECT count(*) FROM identities WHERE name LIKE 'proc-%'").raw(true).get() as number[];
    expect(stored[0]).toBe(200);
    expect(db.prepare('PRAGMA integrity_check').raw(true).get()).toEqual(['ok']);
    db.close();
    if (hasSqlite3) {
      const copy = new Database(join(dir, 'backup.db'));
      expect(copy.prepare('PRAGMA integrity_check').raw(true).get()).toEqual(['ok']);
      copy.close();
    }
  }, 120_000);

  it('keeps the data directory and the database files private', () => {
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    for (const f of ['controller.db', 'controller.db-wal', 'controller.db-shm']) expect(statSync(join(dataDir, f)).mode & 0o777).toBe(0o600);
  });
});
