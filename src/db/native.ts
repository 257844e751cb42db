/**
 * The embedded store on Node: drizzle over the native `libsql` driver (the one `@libsql/client` uses
 * underneath), with every statement prepared once per connection and kept. `@libsql/client`'s local
 * `execute` prepares the statement again and reads its column metadata on every call, which cost more
 * than the read itself on the hot paths (docs/adr/0002-native-sqlite-driver.md).
 *
 * Node-only (native module): imported by src/node.ts, never by the worker. Remote libSQL URLs and D1
 * keep their own drivers (src/db/open.ts).
 */
import Database from 'libsql';
import { drizzle } from 'drizzle-orm/sqlite-proxy';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import type { Logger as QueryLogger } from 'drizzle-orm/logger';
import type { Db } from './client.js';
import * as schema from './schema/index.js';

type Native = InstanceType<typeof Database>;
type NativeStatement = ReturnType<Native['prepare']>;
type Method = 'run' | 'all' | 'values' | 'get';

export interface NativeStoreOptions {
  /** Receives every statement the store runs, batched ones included (the bench counts them). */
  queryLogger?: QueryLogger;
  /** How long a write waits for another connection's write lock before SQLITE_BUSY. */
  busyTimeoutMs?: number;
  /** Attempts of a write that still fails with SQLITE_BUSY after the busy timeout (bounded). */
  busyRetries?: number;
  /** Told how long each statement or batch took (metrics). */
  onTiming?(kind: 'statement' | 'batch', seconds: number, failed: boolean): void;
}

export interface NativeStore {
  db: Db;
  /** The connection itself, for maintenance (integrity checks, tests). */
  native: Native;
  /** Statements currently cached. */
  cachedStatements(): number;
  close(): void;
}

/**
 * Prepared statements kept per connection. The app's statements are a bounded set (query builders
 * produce the same text for the same shape; values are bound), but filters can produce many shapes,
 * so the cache is capped and evicts the least recently used.
 */
const STATEMENT_CACHE_MAX = 500;

export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;
export const DEFAULT_BUSY_RETRIES = 5;
/**
 * How long a start waits for another process's lock before giving up (retried with a backoff of
 * 10 ms doubling to 0.5 s): long enough for another process to migrate a new file on a loaded machine.
 */
const START_BUSY_WAIT_MS = 30_000;

interface Cached {
  stmt: NativeStatement;
  /** Returns rows (SELECT, or a write with RETURNING). */
  reader: boolean;
  /** The result's column names (readers). */
  names: string[];
  /** The statement ends in `limit ?`: bound to 1, it returns at most one row. */
  endsInLimit: boolean;
}

/** The column names of a result, carried by the rows array (`all`) or the row (`get`) to `db.all` / `db.get`. */
const NAMES = Symbol('column names');
type Named = unknown[] & { [NAMES]?: string[] };

function withNames<T extends object | undefined>(value: T, names: string[]): T {
  if (value) Object.defineProperty(value, NAMES, { value: names });
  return value;
}

/** A values row as the object `db.all(sql)` / `db.get(sql)` return on the other drivers. */
function asObject(row: unknown[], names: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < names.length; i++) out[names[i]] = row[i];
  return out;
}

/** True for SQLITE_BUSY and its extended codes (BUSY_SNAPSHOT, BUSY_RECOVERY) and SQLITE_LOCKED. */
export function isBusy(err: unknown): boolean {
  const code = String((err as { code?: unknown })?.code ?? '');
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A pause of the start-up code, which is synchronous (nothing is served yet). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Runs start-up work again while another process's lock makes it fail. Some lock waits do not go
 * through the busy timeout at all: SQLite refuses at once where waiting could deadlock (two
 * connections both upgrading to switch a new file to WAL), so a backoff is needed here as well.
 */
function retryBusyAtStart<T>(work: () => T): T {
  const deadline = Date.now() + START_BUSY_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return work();
    } catch (err) {
      if (!isBusy(err) || Date.now() >= deadline) throw err;
      sleepSync(Math.min(10 * 2 ** attempt, 500) + Math.random() * 20);
    }
  }
}

/** Opens (creating if absent) the file, with WAL and a busy timeout, and returns drizzle over it. */
export function openNativeStore(file: string, options: NativeStoreOptions = {}): NativeStore {
  const native = new Database(file);
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const busyRetries = options.busyRetries ?? DEFAULT_BUSY_RETRIES;
  // The busy timeout first: switching to WAL needs a lock another process may hold at start.
  native.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  // WAL: readers (another process, a `sqlite3` shell, `.backup`) never block the writer, nor it them.
  // Persistent in the file. synchronous stays FULL: an acknowledged write survives power loss too.
  if (file !== ':memory:') retryBusyAtStart(() => native.exec('PRAGMA journal_mode = WAL'));
  const logger = options.queryLogger;

  const cache = new Map<string, Cached>();
  function statement(sql: string): Cached {
    let c = cache.get(sql);
    if (c) {
      // Least recently used goes first: re-insert on use (Map keeps insertion order).
      cache.delete(sql);
      cache.set(sql, c);
      return c;
    }
    const stmt = native.prepare(sql);
    c = { stmt, reader: stmt.reader, names: stmt.reader ? (stmt.columns() as { name: string }[]).map((col) => col.name) : [], endsInLimit: /\slimit \?$/i.test(sql) };
    // Raw mode once and for all: drizzle maps arrays of values by its selected fields.
    if (c.reader) stmt.raw(true);
    cache.set(sql, c);
    if (cache.size > STATEMENT_CACHE_MAX) cache.delete(cache.keys().next().value as string);
    return c;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  function exec(sql: string, params: unknown[], method: Method): { rows: any } {
    logger?.logQuery(sql, params);
    const { stmt, reader, names, endsInLimit } = statement(sql);
    const args = bindable(params);
    if (!reader) {
      const info = stmt.run(args);
      return { rows: [], ...{ rowsAffected: info.changes, lastInsertRowid: info.lastInsertRowid } };
    }
    // The names ride along (one hidden property per result) for hand-written queries read by name.
    if (method === 'get') return { rows: withNames(stmt.get(args) as unknown[] | undefined, names) };
    if (endsInLimit && args[args.length - 1] === 1) {
      // At most one row: the driver's get() reads it ~6 µs cheaper than all(), which sets up a row iterator.
      const row = stmt.get(args) as unknown[] | undefined;
      return { rows: withNames(row === undefined ? [] : [row], names) };
    }
    return { rows: withNames(stmt.all(args) as unknown[], names) };
  }

  /** Runs `work` again after SQLITE_BUSY, a bounded number of times with a growing pause. */
  async function withBusyRetry<T>(work: () => T): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return work();
      } catch (err) {
        if (!isBusy(err) || attempt >= busyRetries) throw err;
        await sleep(5 * 2 ** attempt + Math.random() * 10);
      }
    }
  }

  /** Times `work` for `onTiming`, when one is set. */
  async function timedRun<T>(kind: 'statement' | 'batch', work: () => Promise<T>): Promise<T> {
    const onTiming = options.onTiming;
    if (!onTiming) return work();
    const start = performance.now();
    let failed = false;
    try {
      return await work();
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      onTiming(kind, (performance.now() - start) / 1000, failed);
    }
  }

  const single = (sql: string, params: unknown[], method: Method) =>
    // A lone read never waits on a writer in WAL; a lone write may meet another process's lock.
    timedRun('statement', () => withBusyRetry(() => exec(sql, params, method)));

  const batch = (queries: { sql: string; params: unknown[]; method: Method }[]) =>
    timedRun('batch', () => withBusyRetry(() => {
      // IMMEDIATE takes the write lock up front, so the busy timeout applies to it; a deferred
      // transaction that reads first could only fail (BUSY_SNAPSHOT) when it later tries to write.
      native.exec('BEGIN IMMEDIATE');
      try {
        // Synchronous: nothing else runs on this connection between BEGIN and COMMIT.
        const results = queries.map((q) => exec(q.sql, q.params, q.method));
        native.exec('COMMIT');
        return results;
      } catch (err) {
        if (native.inTransaction) native.exec('ROLLBACK');
        throw err;
      }
    }));

  const db = drizzle(single, batch, { schema }) as unknown as Db;
  // drizzle's proxy driver maps rows by field only for the selects it builds; a hand-written query
  // (`db.all(sql)`, `db.get(sql)`) would get arrays of values here and objects on libSQL and D1. Read
  // by name, as there.
  const all = db.all.bind(db);
  const get = db.get.bind(db);
  Object.assign(db, {
    all: async (query: Parameters<Db['all']>[0]) => {
      const rows = (await all(query)) as Named[] & { [NAMES]?: string[] };
      const names = rows[NAMES];
      return names ? rows.map((r) => asObject(r, names)) : rows;
    },
    get: async (query: Parameters<Db['get']>[0]) => {
      const row = (await get(query)) as Named | undefined;
      const names = row?.[NAMES];
      return row && names ? asObject(row, names) : row;
    },
  });
  return {
    db,
    native,
    cachedStatements: () => cache.size,
    close: () => native.close(),
  };
}

/** drizzle already maps booleans and dates to integers for typed columns; raw `sql` values may not be. */
function bindable(params: unknown[]): unknown[] {
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (typeof p === 'boolean' || p === undefined) return params.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v === undefined ? null : v));
  }
  return params;
}

/**
 * Applies drizzle-kit's migrations (same bookkeeping table as drizzle's libSQL migrator, so existing
 * stores carry on). The check and the migrations run under one write lock, so that processes started
 * together on one new file migrate it once.
 */
export function migrateNative(store: NativeStore, migrationsFolder: string): void {
  const { native } = store;
  const migrations = readMigrationFiles({ migrationsFolder });
  const run = () => {
    native.exec('BEGIN IMMEDIATE');
    try {
      native.exec('CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)');
      const last = native.prepare('SELECT created_at FROM "__drizzle_migrations" ORDER BY created_at DESC LIMIT 1').raw(true).get() as unknown[] | undefined;
      const lastAt = last ? Number(last[0]) : -Infinity;
      const insert = native.prepare('INSERT INTO "__drizzle_migrations" ("hash", "created_at") VALUES (?, ?)');
      for (const m of migrations) {
        if (m.folderMillis <= lastAt) continue;
        for (const sql of m.sql) if (sql.trim()) native.exec(sql);
        insert.run([m.hash, m.folderMillis]);
      }
      native.exec('COMMIT');
    } catch (err) {
      if (native.inTransaction) native.exec('ROLLBACK');
      throw err;
    }
  };
  // The busy timeout covers a concurrent start; the retry covers the lock upgrade race.
  retryBusyAtStart(run);
}
