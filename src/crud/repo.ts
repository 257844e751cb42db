/**
 * The generic repo of every entity table, and the one list-page query every list uses. This is the only
 * drizzle code of the CRUD engine; resources add their own queries in their repo.ts.
 */
import { and, count, eq, getTableName, ne, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { atomic, type Db, type Statement } from '../db/client.js';
import { keptPage, keptPageReadAhead, type PendingRead, type ReadAhead, type TotalVersions } from '../db/list-page.js';
import { fieldError } from '../errors.js';
import type { BaseRow, EntityTable, UniqueColumn } from './entity.js';
import type { ResolvedListQuery } from './list-query.js';

export type { Statement };

/** Extra columns selected with each row: correlated sub-queries such as a referenced entity's name. */
export type Extras = Record<string, SQL<unknown>>;
export type ExtraValues<E extends Extras> = { [K in keyof E]: E[K] extends SQL<infer V> ? V : unknown };
export type Selected<Row, E extends Extras> = { row: Row } & ExtraValues<E>;

/**
 * One page of any selectable source and its total, for the same `where`: the page SELECT and the COUNT
 * run together. Every list (entities, role attributes, sub-lists) goes through here.
 */
export async function listPage<R>(page: (q: { limit: number; offset: number }) => Promise<R[]>, total: () => Promise<{ n: number }[]>, q: Pick<ResolvedListQuery, 'limit' | 'offset'>): Promise<{ rows: R[]; total: number }> {
  const [rows, counted] = await Promise.all([page({ limit: q.limit ?? -1, offset: q.offset }), total()]);
  return { rows, total: Number(counted[0]?.n ?? 0) };
}

/**
 * The exact total of an unfiltered list computed another way than COUNT over its restriction (a list
 * whose restriction is costly to count keeps its total elsewhere); used only when no user filter applies.
 */
export type TotalOverride = () => Promise<number>;

/** What a kept list builds once per distinct request (see `EntityRepo.keptList`). */
export interface KeptListBuild<E extends Extras> {
  q: ResolvedListQuery;
  /** The endpoint's own restriction; like the filter, it may read only the entity's own table. */
  where?: SQL;
  /** Per-request values are drizzle placeholders (`sql.placeholder`), filled from `placeholders`. */
  extras?: E;
}

export interface EntityRepo<Row extends BaseRow> {
  list<E extends Extras = {}>(db: Db, q: ResolvedListQuery, options?: { where?: SQL; extras?: E; total?: TotalOverride }): Promise<{ rows: Selected<Row, E>[]; total: number }>;
  /**
   * A list whose page statement is kept per store handle and `key` and whose exact total is kept while the
   * table's `versions` hold (src/db/list-page.ts `keptPage`); one statement per request. `build` runs only
   * for a request not kept, and must depend on nothing but `key`.
   */
  keptList<E extends Extras = {}>(
    db: Db,
    key: string,
    build: () => KeptListBuild<E>,
    versions: TotalVersions,
    placeholders?: Record<string, unknown>,
    readAhead?: ReadAhead,
  ): Promise<{ rows: Selected<Row, E>[]; total: number; limit: number | null; offset: number }>;
  /** `keptList`'s page statement, guarded, to read with another (src/db/list-page.ts `keptPageReadAhead`). */
  keptListReadAhead<E extends Extras = {}>(db: Db, key: string, build: () => KeptListBuild<E>, versions: TotalVersions, placeholders: Record<string, unknown>, guard: SQL): PendingRead | undefined;
  find<E extends Extras = {}>(db: Db, id: string, extras?: E): Promise<Selected<Row, E> | undefined>;
  /** Another row (not `exceptId`) already holds this value in the column. */
  taken(db: Db, column: string, value: unknown, exceptId?: string): Promise<boolean>;
  insert(db: Db, values: Record<string, unknown>): Statement;
  update(db: Db, id: string, values: Record<string, unknown>): Statement;
  remove(db: Db, id: string): Statement;
}

/** The generic repo of an entity table. */
export function entityRepo<Row extends BaseRow>(table: EntityTable): EntityRepo<Row> {
  // drizzle's builders are typed per table; this generic code works on any entity table.
  const t = table as any;
  const column = (name: string): SQLiteColumn => {
    const c = t[name] as SQLiteColumn | undefined;
    if (!c) throw new Error(`no column ${name}`);
    return c;
  };
  const keptPageQuery = (build: () => KeptListBuild<Extras>, versions: TotalVersions) => () => {
    const { q, where, extras } = build();
    return { table: t, selection: { row: t, ...(extras ?? {}) }, where: and(where, q.where), orderBy: q.orderBy, limit: q.limit, offset: q.offset, versions };
  };
  return {
    async list(db, q, options = {}) {
      const where = and(options.where, q.where);
      return listPage(
        (p) => (db as any).select({ row: t, ...(options.extras ?? {}) }).from(t).where(where).orderBy(...q.orderBy).limit(p.limit).offset(p.offset),
        () => (q.where === undefined && options.total ? options.total().then((n) => [{ n }]) : db.select({ n: count() }).from(t).where(where)),
        q,
      );
    },
    keptList(db, key, build, versions, placeholders, readAhead) {
      return keptPage(db, key, keptPageQuery(build, versions), placeholders, readAhead);
    },
    keptListReadAhead(db, key, build, versions, placeholders, guard) {
      return keptPageReadAhead(db, key, keptPageQuery(build, versions), placeholders, guard);
    },
    async find(db, id, extras) {
      const rows = await (db as any)
        .select({ row: t, ...(extras ?? {}) })
        .from(t)
        .where(eq(t.id, id))
        .limit(1);
      return rows[0];
    },
    async taken(db, name, value, exceptId) {
      const rows = await db
        .select({ id: t.id })
        .from(t)
        .where(and(eq(column(name), value), exceptId === undefined ? undefined : ne(t.id, exceptId)))
        .limit(1);
      return rows.length > 0;
    },
    insert: (db, values) => db.insert(t).values(values),
    update: (db, id, values) => db.update(t).set(values).where(eq(t.id, id)),
    remove: (db, id) => db.delete(t).where(eq(t.id, id)),
  };
}

/** The `table.column` names of a UNIQUE violation in an error (libSQL and D1 wrap it differently), or undefined. */
export function uniqueViolation(error: unknown): string[] | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const m = /UNIQUE constraint failed: ([\w.]+(?:, [\w.]+)*)/i.exec(String((e as Error).message ?? e));
    if (m) return m[1].split(', ');
  }
  return undefined;
}

/** True when a write failed on a trigger's `RAISE(ABORT, '<marker>')` (the store holding a cross-table rule). */
export function triggerRaised(error: unknown, marker: string): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (String((e as Error).message ?? e).includes(marker)) return true;
  }
  return false;
}

export function uniqueError(field: string, value: unknown) {
  return fieldError(field, `${field} must be unique`, value);
}

export interface UniqueWrite {
  table: SQLiteTable;
  columns: UniqueColumn<any>[];
  values: Record<string, unknown>;
}

/**
 * Runs a write batch; a unique-index violation (a concurrent write took the value between the check and
 * the write) becomes the same 400 the check gives.
 */
export async function writeBatch(db: Db, statements: Statement[], unique: UniqueWrite[] = []): Promise<void> {
  try {
    await atomic(db, statements);
  } catch (e) {
    const failed = uniqueViolation(e);
    if (!failed) throw e;
    for (const { table, columns, values } of unique) {
      const tableName = getTableName(table);
      for (const u of columns) {
        const sqlName = ((table as any)[u.column] as SQLiteColumn).name;
        if (failed.includes(`${tableName}.${sqlName}`)) throw uniqueError(u.field, values[u.column]);
      }
    }
    throw e;
  }
}

/**
 * A column qualified with its table name. Drizzle renders columns of a single-table query unqualified,
 * which inside a correlated sub-query would bind to the sub-query's own table.
 */
export function qualified(column: SQLiteColumn): SQL {
  return sql`${sql.identifier(getTableName(column.table))}.${sql.identifier(column.name)}`;
}
