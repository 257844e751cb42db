/**
 * Opening the store on Node: the embedded file through the native driver (src/db/native.ts), or a
 * remote libSQL URL through `@libsql/client`. Node-only; src/node.ts is its one caller.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger as QueryLogger } from 'drizzle-orm/logger';
import type { Db } from './client.js';
import type { RuntimeOperations } from '../deps.js';
import { migrateNative, openNativeStore, type NativeStore } from './native.js';

export interface NodeStore {
  db: Db;
  /** Where the data lives, for the banner and logs (never the auth token). */
  location: string;
  /** The native connection when the store is an embedded file. */
  native?: NativeStore;
  close(): void;
}

export interface NodeStoreOptions {
  /** LIBSQL_URL: a remote libSQL/Turso database instead of the embedded file. */
  url?: string;
  authToken?: string;
  dataDir: string;
  migrationsFolder: string;
  queryLogger?: QueryLogger;
  /** Told how long each store round trip took (metrics). */
  onTiming?(kind: 'statement' | 'batch', seconds: number, failed: boolean): void;
}

/** The embedded database file inside the data directory. */
export const DB_FILE = 'controller.db';

/**
 * The data directory holds the database and the controller secret: only the controller's user may
 * enter it (0700). Created if absent (libSQL does not create it); tightened if it exists.
 */
export function prepareDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if ((statSync(dataDir).mode & 0o777) !== 0o700) chmodSync(dataDir, 0o700);
}

/**
 * Creates the database file 0600 before SQLite opens it: SQLite gives the `-wal` and `-shm` files it
 * creates the database file's mode. Files left 0644 by older versions are tightened.
 */
function privateFile(file: string): void {
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    if (existsSync(f) && (statSync(f).mode & 0o077) !== 0) chmodSync(f, 0o600);
  }
}

/** `file:///abs/x.db` or `file:rel/x.db` (relative to the working directory). */
function filePath(url: string): string {
  return url.startsWith('file://') ? fileURLToPath(url) : decodeURIComponent(url.slice('file:'.length));
}

export async function openStore(options: NodeStoreOptions): Promise<NodeStore> {
  if (options.url && !options.url.startsWith('file:')) {
    // Remote only: loaded on demand so the embedded path does not pay for the HTTP/WebSocket client.
    const [{ createClient }, { openLibsql }, { migrate }] = await Promise.all([
      import('@libsql/client'),
      import('./open.js'),
      import('drizzle-orm/libsql/migrator'),
    ]);
    const client = createClient({ url: options.url, authToken: options.authToken });
    const db = openLibsql(client, options.queryLogger);
    await migrate(db as never, { migrationsFolder: options.migrationsFolder });
    return { db, location: new URL(options.url).host, close: () => client.close() };
  }
  const file = options.url ? filePath(options.url) : join(options.dataDir, DB_FILE);
  privateFile(file);
  const native = openNativeStore(file, { queryLogger: options.queryLogger, onTiming: options.onTiming });
  try {
    migrateNative(native, options.migrationsFolder);
  } catch (err) {
    native.close();
    throw err;
  }
  return { db: native.db, location: file, native, close: () => native.close() };
}

/**
 * `<dir>/<name>.snapshot-<UTC yyyymmdd-hhmmss>.db` next to the database file: one a minute at most
 * (`POST /database/snapshot`), so the second is fine enough.
 */
export function snapshotPath(file: string, now: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return join(dirname(file), `${basename(file).replace(/\.db$/, '')}.snapshot-${stamp}.db`);
}

/** Runs in a worker thread: its own connection copies the database, so the server's event loop never waits. */
const VACUUM_INTO = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db;
try {
  db = new Database(workerData.source);
  db.exec('PRAGMA busy_timeout = 5000');
  db.prepare('VACUUM INTO ?').run([workerData.target]);
  parentPort.postMessage({ ok: true });
} catch (e) {
  parentPort.postMessage({ ok: false, error: String((e && e.message) || e) });
} finally {
  if (db) db.close();
}`;

/**
 * A consistent copy of the embedded database (`VACUUM INTO`: one read transaction, so every row of the
 * copy is from one moment; in WAL mode writers carry on meanwhile), written next to it, 0600 like the
 * database. Resolves to the copy's path.
 */
export function snapshotFile(file: string, now: number): Promise<string> {
  const target = snapshotPath(file, now);
  // Created empty and private first: VACUUM INTO writes into an empty file and keeps its mode.
  closeSync(openSync(target, 'wx', 0o600));
  const driver = createRequire(import.meta.url).resolve('libsql');
  return new Promise<string>((resolve, reject) => {
    const fail = (e: Error) => {
      rmSync(target, { force: true });
      reject(e);
    };
    const worker = new Worker(VACUUM_INTO, { eval: true, workerData: { driver, source: file, target } });
    worker.once('message', (m: { ok: boolean; error?: string }) => (m.ok ? resolve(target) : fail(new Error(`snapshot failed: ${m.error}`))));
    worker.once('error', fail);
  });
}

/** What `POST /database/snapshot` does on Node: a file next to the embedded database, or why not (remote libSQL). */
export function nodeStoreOperations(store: NodeStore): RuntimeOperations {
  if (!store.native) {
    return {
      snapshot: async (now) => ({
        kind: 'unsupported',
        reason: `the store is a remote libSQL database (${store.location}), which the controller cannot copy; use the platform's point-in-time restore for ${new Date(now).toISOString()} (Turso: turso db create <new-name> --from-db <database> --timestamp <that time>)`,
      }),
    };
  }
  return { snapshot: async (now) => ({ kind: 'file', path: await snapshotFile(store.location, now) }) };
}
