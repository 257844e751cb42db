import { is, Param, Placeholder } from 'drizzle-orm';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import type { BatchItem } from 'drizzle-orm/batch';

/** A SQL fragment (a list restriction a repo builds); the only drizzle type code outside repos handles. */
export type { SQL } from 'drizzle-orm';
import * as schema from './schema/index.js';
import { extend } from '../lib/objects.js';

/** The database handle every repo receives: drizzle over libSQL (Node, Turso) or D1 (Workers). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Db = BaseSQLiteDatabase<'async', any, typeof schema>;
export { schema };

/** One statement of an atomic batch, built by a repo. */
export type Statement = BatchItem<'sqlite'>;
type Batchable = Statement;

/**
 * Runs the statements as one atomic batch (one implicit transaction on both libSQL and D1).
 * This is the only way the project writes more than one row at a time: D1 has no interactive
 * transactions, so ids and values are computed before the batch and no statement depends on
 * another's result.
 */
export async function atomic(db: Db, statements: Batchable[]): Promise<void> {
  if (statements.length === 0) return;
  const batchable = db as unknown as { batch(items: [Batchable, ...Batchable[]]): Promise<unknown> };
  await batchable.batch(statements as [Batchable, ...Batchable[]]);
}

/**
 * Rows of a hand-written SELECT, named by `columns` in select order. `db.all(sql)` returns objects on
 * libSQL and D1 but arrays on the embedded native store (raw mode, src/db/native.ts); `values()` returns
 * arrays everywhere, so this is the one way to read a raw SELECT that works on every store.
 */
export async function selectRows<const C extends readonly string[], T extends Record<C[number], unknown>>(db: Db, query: import('drizzle-orm').SQL, columns: C): Promise<T[]> {
  const rows = (await db.values(query)) as unknown[][];
  return rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]])) as T);
}

/**
 * What `build` makes (prepared statements), once per database handle: building a drizzle query costs
 * about as much as running it on the hot paths, and a prepared query is tied to its handle.
 */
export function preparedPer<P>(build: (db: Db) => P): (db: Db) => P {
  const prepared = new WeakMap<Db, P>();
  return (db) => {
    let p = prepared.get(db);
    if (!p) prepared.set(db, (p = build(db)));
    return p;
  };
}

/** Where one parameter of a kept statement comes from: a constant, or a named value (through its column's encoder). */
type Slot = { value: unknown } | { name: string; encoder?: { mapToDriverValue(value: unknown): unknown } };

function slotOf(param: unknown): Slot {
  if (is(param, Placeholder)) return { name: param.name };
  if (is(param, Param) && is(param.value, Placeholder)) return { name: param.value.name, encoder: param.encoder as { mapToDriverValue(value: unknown): unknown } };
  return { value: param };
}

/**
 * A write prepared once per database handle (`preparedPer`), to go into atomic batches with the values of
 * its placeholders. Every driver's batch (the native proxy, libSQL, D1) asks an item for its prepared query
 * (`_prepare()`), reads its SQL and parameters (`getQuery()`) and maps its result with that query's own
 * `mapResult`: the item hands over the kept query with its parameters filled in, so a batch written on
 * every request (a login's) does not build its SQL again. Values are bound as drizzle binds them when it
 * builds a query: null and undefined as null, anything else through its column's encoder.
 */
export function keptStatement(build: (db: Db) => { getQuery(): { params: unknown[] } }): (db: Db, values: Record<string, unknown>) => Statement {
  const kept = preparedPer((db) => {
    const prepared = build(db);
    const query = prepared.getQuery();
    return { prepared, query, slots: query.params.map(slotOf) };
  });
  return (db, values) => {
    const { prepared, query, slots } = kept(db);
    const params: unknown[] = new Array(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i];
      if (!('name' in slot)) {
        params[i] = slot.value;
        continue;
      }
      if (!(slot.name in values)) throw new Error(`no value for placeholder "${slot.name}"`);
      const value = values[slot.name];
      params[i] = value === null || value === undefined ? null : slot.encoder ? slot.encoder.mapToDriverValue(value) : value;
    }
    const bound = Object.create(prepared, { getQuery: { value: () => extend(query, { params }) } }) as object;
    return { _prepare: () => bound } as unknown as Statement;
  };
}

/** One statement of `readTogether`: its SQL and its parameters, placeholders filled. */
export interface BoundRead {
  sql: string;
  params: unknown[];
}

interface D1Client {
  prepare(sql: string): { bind(...values: unknown[]): unknown };
  batch(statements: unknown[]): Promise<{ results?: Record<string, unknown>[] }[]>;
}
interface LibsqlClient {
  protocol: string;
  batch(statements: { sql: string; args: unknown[] }[], mode: 'read'): Promise<{ rows: ArrayLike<unknown>[] }[]>;
}

/**
 * Reads statements in one round trip to a store across the network (D1, remote libSQL), each as value
 * arrays in select order; undefined for the embedded file, where a round trip costs nothing and callers
 * read one statement at a time as usual. D1 answers a batch's rows as objects, so the statements' columns
 * must have distinct names (`flatSelection` aliases them).
 */
export function readTogether(db: Db): ReadTogether | undefined {
  let found = readers.get(db);
  if (found === undefined) readers.set(db, (found = readerOf(db) ?? null));
  return found ?? undefined;
}

type ReadTogether = (reads: BoundRead[]) => Promise<unknown[][][]>;
/** Per store handle: asked on every request that may read ahead, decided once. */
const readers = new WeakMap<Db, ReadTogether | null>();

function readerOf(db: Db): ReadTogether | undefined {
  const client = (db as unknown as { $client?: unknown }).$client as Partial<D1Client & LibsqlClient> | undefined;
  if (!client || typeof client.batch !== 'function') return undefined;
  if (typeof client.prepare === 'function') {
    const d1 = client as D1Client;
    return async (reads) => {
      const results = await d1.batch(reads.map((r) => d1.prepare(r.sql).bind(...r.params)));
      return results.map((r) => (r.results ?? []).map((row) => Object.values(row)));
    };
  }
  if (typeof client.protocol === 'string' && client.protocol !== 'file') {
    const libsql = client as LibsqlClient;
    return async (reads) => {
      const results = await libsql.batch(reads.map((r) => ({ sql: r.sql, args: r.params })), 'read');
      return results.map((r) => r.rows.map((row) => Array.from(row)));
    };
  }
  return undefined;
}
