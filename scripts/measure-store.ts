/**
 * The store path of the session check, statement by statement, on one file (docs/adr/0002): the same
 * session lookup as a kept prepared statement of the native driver (the floor), through drizzle and
 * the project's native driver, and through `@libsql/client` (which prepares on every call); and the
 * read floor's 3-column read the same two ways. Each row is µs per call, median of 5 rounds.
 *
 *   npx tsx scripts/measure-store.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import Database from 'libsql';
import { findSessionByTokenHash } from '../src/auth/session-repo.js';
import { openStore, prepareDataDir } from '../src/db/node-store.js';
import { MIGRATIONS_DIR } from '../src/node.js';

const dir = mkdtempSync(join(tmpdir(), 'measure-store-'));
prepareDataDir(dir);
const logged: string[] = [];
const store = await openStore({ dataDir: dir, migrationsFolder: MIGRATIONS_DIR, queryLogger: { logQuery: (s) => void logged.push(s) } });
const file = join(dir, 'controller.db');
const now = Date.now();
const native = new Database(file);
native.exec(`INSERT INTO auth_policies (id, name, created_at, updated_at) VALUES ('default', 'Default', ${now}, ${now}) ON CONFLICT DO NOTHING`);
const insertIdentity = native.prepare('INSERT INTO identities (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)');
const insertSession = native.prepare('INSERT INTO api_sessions (id, created_at, updated_at, token_hash, identity_id, authenticator_id, last_activity_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
native.exec('BEGIN');
for (let i = 0; i < 16_000; i++) {
  insertIdentity.run([`id${i}`, `identity-${i}`, now, now]);
  if (i % 4 === 0) insertSession.run([`s${i}`, now, now, `hash${i}`, `id${i}`, `a${i}`, now]);
}
native.exec('COMMIT');

await findSessionByTokenHash(store.db, 'hash0');
const sessionSql = logged[logged.length - 1];
const floorSql = 'SELECT id, name, role_attributes FROM identities WHERE id = ?';
const libsql = createClient({ url: `file:${file}` });

async function measure(name: string, n: number, call: (i: number) => unknown): Promise<void> {
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    for (let i = 0; i < n; i++) await call(i);
    rounds.push(((performance.now() - t) * 1000) / n);
  }
  rounds.sort((a, b) => a - b);
  console.log(`${name.padEnd(58)} ${rounds[2].toFixed(1).padStart(7)} µs`);
}

const key = (i: number) => (i * 4) % 16_000;
const kept = native.prepare(sessionSql).raw(true);
const keptFloor = native.prepare(floorSql).raw(true);
await measure('session lookup, kept native statement (floor)', 20_000, (i) => kept.get([`hash${key(i)}`, 1]));
await measure('session lookup, drizzle + src/db/native.ts', 20_000, (i) => findSessionByTokenHash(store.db, `hash${key(i)}`));
await measure('session lookup, @libsql/client execute', 5_000, (i) => libsql.execute({ sql: sessionSql, args: [`hash${key(i)}`, 1] }));
await measure('read floor (3 columns by id), kept native statement', 20_000, (i) => keptFloor.get([`id${key(i)}`]));
await measure('read floor (3 columns by id), @libsql/client execute', 5_000, (i) => libsql.execute({ sql: floorSql, args: [`id${key(i)}`] }));

libsql.close();
native.close();
store.close();
rmSync(dir, { recursive: true, force: true });
