import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import type { BatchItem } from 'drizzle-orm/batch';

/** A SQL fragment (a list restriction a repo builds); the only drizzle type code outside repos handles. */
export type { SQL } from 'drizzle-orm';
import * as schema from './schema/index.js';

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
