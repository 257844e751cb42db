/**
 * A list page and its total in one statement: the total is an uncorrelated scalar subquery, which
 * SQLite evaluates once, while the page itself keeps its plan (an index that gives the order still
 * stops the scan after `limit` rows). One round trip instead of two matters most on D1 and remote
 * libSQL, where every statement is a network call.
 *
 * Not `count(*) over ()`: a window over the whole result makes SQLite materialise and sort every
 * matching row before the limit applies.
 *
 * The filter's parameters are bound twice (page and total); a filter with so many values that the
 * statement would pass D1's 100 parameters gets its page and count as two statements.
 */
import { Column, count, getTableColumns, is, sql, SQL } from 'drizzle-orm';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './client.js';
import { extend } from '../lib/objects.js';

export interface PageQuery {
  where?: SQL;
  orderBy: SQL[];
  /** null = no limit. */
  limit: number | null;
  offset: number;
}

const TOTAL = '__total';
/** Bound parameters D1 accepts in one statement. */
const MAX_PARAMS = 100;

export async function pageWithTotal<Row>(db: Db, table: SQLiteTable, selection: Record<string, unknown>, q: PageQuery): Promise<{ rows: Row[]; total: number }> {
  const total = sql<number>`(select count(*) from ${table}${q.where ? sql` where ${q.where}` : sql``})`.mapWith(Number);
  // drizzle's builders are typed per table; this generic code works on any table and selection.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const pageOf = (extra: Record<string, unknown>) => (db as any).select({ ...selection, ...extra }).from(table).where(q.where).orderBy(...q.orderBy).limit(q.limit ?? -1).offset(q.offset).prepare();
  const folded = pageOf({ [TOTAL]: total });
  if (folded.getQuery().params.length > MAX_PARAMS) {
    // The filter's values bound twice would pass D1's limit: the page and its count as two statements.
    const [rows, [c]] = await Promise.all([pageOf({}).all() as Promise<Row[]>, db.select({ n: count() }).from(table).where(q.where)]);
    return { rows, total: c?.n ?? 0 };
  }
  const found = (await folded.all()) as (Row & { [TOTAL]: number })[];
  if (found.length === 0) {
    // No row carries the total: nothing matches, or the page lies past the end (the rare second statement).
    if (q.offset === 0) return { rows: [], total: 0 };
    const [c] = await db.select({ n: count() }).from(table).where(q.where);
    return { rows: [], total: c?.n ?? 0 };
  }
  const n = found[0][TOTAL];
  for (const r of found) delete (r as Partial<Record<typeof TOTAL, number>>)[TOTAL];
  return { rows: found as Row[], total: n };
}

// ---------------------------------------------------------------------------------------------------------
// Kept lists: statements built once per request shape, totals kept while the table's versions hold

/**
 * The `list_versions` rows (src/db/schema/list-versions.ts) that move with every write a count over the
 * table may observe: `name` for inserts, deletes and the watched columns, and one row per column kept
 * apart (`updated_at`, moved by logins), which a count depends on only when its `where` names the column.
 */
export interface TotalVersions {
  name: string;
  columns?: Record<string, string>;
}

export interface KeptPageQuery extends PageQuery {
  table: SQLiteTable;
  /** Columns, SQL expressions, or tables (selected as nested objects of their columns), as drizzle's `select`. */
  selection: Record<string, Column | SQL | SQLiteTable>;
  /** What the table's writes move. The `where` must read nothing but this table's columns. */
  versions: TotalVersions;
}

/** A total and the versions it was counted at (text; NULL when a version row is missing: never kept). */
interface KeptTotal {
  version: string | null;
  total: number;
}

interface Prepared<R> {
  all(placeholders?: Record<string, unknown>): Promise<R[]>;
  values(placeholders?: Record<string, unknown>): Promise<unknown[][]>;
  getQuery(): { params: unknown[] };
}

interface KeptPageEntry {
  page: Prepared<never>;
  /** Maps the page's value arrays to rows as drizzle would, without its per-value type checks. */
  map: (values: unknown[]) => Record<string, unknown>;
  /** The count is inside the page statement (CASE), or a statement of its own (a filter with many values). */
  folded: boolean;
  count: Prepared<{ version: string | null; n: number }>;
  totals: KeptTotal;
  limit: number | null;
  offset: number;
  /** The page as `keptPageReadAhead` reads it, limited to callers its guard admits; made on first use, null when it would pass D1's parameters. */
  guarded?: Prepared<never> | null;
  /** Builds the guarded page (the guard an SQL condition), from the same query as the page. */
  guardedOf: (guard: SQL) => Prepared<never>;
}

/** Distinct list requests and distinct counts kept per store handle (least recently used evicted). */
const KEPT_PAGES = 200;
const KEPT_TOTALS = 200;

interface KeptStore {
  pages: Map<string, KeptPageEntry>;
  totals: Map<string, KeptTotal>;
}
const kept = new WeakMap<Db, KeptStore>();

function touch<V>(map: Map<string, V>, key: string, max: number, create?: () => V): V | undefined {
  let v = map.get(key);
  if (v !== undefined) {
    map.delete(key);
    map.set(key, v);
    return v;
  }
  if (!create) return undefined;
  v = create();
  map.set(key, v);
  if (map.size > max) map.delete(map.keys().next().value as string);
  return v;
}

const VERSION_NAME = /^[a-z_][a-z0-9_.]*$/;
const VERSION = '__version';

/** One selected value: where it goes in the row (`group` a nested object, for a table) and how it is decoded. */
interface Slot {
  group: string | null;
  key: string;
  decoder: { mapFromDriverValue(value: unknown): unknown };
}

/**
 * The selection flattened in a fixed order, with what maps a value array back to the nested row drizzle's
 * `select(selection)` gives (null values stay null, others go through the column's or expression's decoder).
 * The columns of the `packed` keys are selected as one JSON array value instead of one value each.
 */
export function flatSelection(
  selection: Record<string, Column | SQL | SQLiteTable | Record<string, Column | SQL>>,
  packed: readonly string[] = [],
): { fields: Record<string, Column | SQL>; map: (values: unknown[]) => Record<string, unknown> } {
  const fields: Record<string, Column | SQL> = {};
  const slots: Slot[] = [];
  const packedSlots: Slot[] = [];
  const packedValues: SQL[] = [];
  const add = (group: string | null, key: string, field: Column | SQL, pack: boolean) => {
    if (is(field, Column) && field.getSQLType() === 'blob') throw new Error(`kept lists select no BLOB column (${field.name})`);
    if (!is(field, Column) && !is(field, SQL)) throw new Error(`kept lists select columns, tables and SQL expressions (${key})`);
    // An expression's decoder is what `.mapWith()` set (drizzle marks the property internal; it maps its own rows with it).
    const slot = { group, key, decoder: is(field, Column) ? field : (field as unknown as { decoder: Slot['decoder'] }).decoder };
    if (pack) {
      if (!is(field, Column)) throw new Error(`only columns are packed (${key}): an expression's JSON would be nested, not quoted`);
      packedSlots.push(slot);
      packedValues.push(sql`${field}`);
      return;
    }
    // Aliased: the names of the columns a statement returns are then distinct, which a store that answers
    // rows as objects (D1's batch, `readTogether`) needs; values are mapped by position either way.
    const name = `f${slots.length}`;
    fields[name] = sql`${field}`.as(name) as unknown as SQL;
    slots.push(slot);
  };
  for (const [key, field] of Object.entries(selection)) {
    const pack = packed.includes(key);
    if (is(field, SQLiteTable)) for (const [name, column] of Object.entries(getTableColumns(field))) add(key, name, column as Column, pack);
    else if (is(field, Column) || is(field, SQL)) add(null, key, field as Column | SQL, pack);
    // A nested object of columns, as `select({ group: { a: t.a, b: t.b } })` takes it.
    else for (const [name, column] of Object.entries(field as Record<string, Column | SQL>)) add(key, name, column, pack);
  }
  // The packed columns as one JSON array, after the others: one value for the driver (and for D1, its
  // result encoding) to carry instead of one per column. A column's value reads back as the driver gives
  // it: SQLite writes integers, reals and text as JSON numbers and strings, NULL as null.
  if (packedSlots.length > 0) fields[`f${slots.length}`] = sql`json_array(${sql.join(packedValues, sql`, `)})`.as(`f${slots.length}`) as unknown as SQL;
  const groups = [...new Set([...slots, ...packedSlots].map((slot) => slot.group).filter((g): g is string => g !== null))];
  const put = (out: Record<string, unknown>, { group, key, decoder }: Slot, raw: unknown) => {
    const value = raw === null ? null : decoder.mapFromDriverValue(raw);
    if (group === null) out[key] = value;
    else (out[group] as Record<string, unknown>)[key] = value;
  };
  const map = (values: unknown[]): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const g of groups) out[g] = {};
    for (let i = 0; i < slots.length; i++) put(out, slots[i], values[i]);
    if (packedSlots.length > 0) {
      const unpacked = JSON.parse(values[slots.length] as string) as unknown[];
      for (let i = 0; i < packedSlots.length; i++) put(out, packedSlots[i], unpacked[i]);
    }
    return out;
  };
  return { fields, map };
}

/** The versions a count over `whereSql` depends on, as one TEXT value (NULL when a row is missing). */
function versionExpression(versions: TotalVersions, whereSql: string): SQL {
  const names = [versions.name];
  for (const [column, name] of Object.entries(versions.columns ?? {})) if (whereSql.includes(`"${column}"`)) names.push(name);
  const parts = names.map((name) => {
    // Names are the code's own constants; written into the text so they take none of D1's 100 parameters.
    if (!VERSION_NAME.test(name)) throw new Error(`bad list version name ${name}`);
    return sql`CAST((SELECT "version" FROM "list_versions" WHERE "name" = '${sql.raw(name)}') AS TEXT)`;
  });
  return sql.join(parts, sql` || '.' || `);
}

/**
 * A list page and its exact total, for lists asked again and again (the management identity list): the
 * page statement is built and prepared once per store handle and `key` (the request's list parameters,
 * which decide the whole statement), and the total is kept per distinct count and reused while the
 * versions of `list_versions` it was counted at still hold. One statement per request either way:
 *
 * ```sql
 * SELECT <selection>, <versions> AS __version,
 *        CASE WHEN <versions> = ?kept THEN NULL ELSE (SELECT count(*) FROM t WHERE <where>) END AS __total
 * FROM t WHERE <where> ORDER BY ... LIMIT ? OFFSET ?
 * ```
 *
 * The versions are read in the page's own statement, so a kept total is used only when the snapshot the
 * page comes from shows the versions it was counted at: the count of that snapshot is the same. SQLite
 * evaluates an uncorrelated scalar subquery once, and inside CASE only when the branch is taken, so a
 * kept total costs no scan. `build` runs only when `key` is not kept; what it returns must depend on
 * nothing but `key` (per-request values go through drizzle placeholders, filled from `placeholders`).
 *
 * A filter whose values would bind more than D1's 100 parameters twice leaves the count out of the page
 * statement: the page reads the versions, and the count (with the versions it saw) runs as a second
 * statement only when they are not the kept ones.
 */
export async function keptPage<Row>(db: Db, key: string, build: () => KeptPageQuery, placeholders: Record<string, unknown> = {}, readAhead?: ReadAhead): Promise<KeptPageResult<Row>> {
  const entry = keptEntry(db, key, build);
  if (readAhead?.known !== undefined && readAhead.key === key) return pageOfValues(entry, readAhead.known, readAhead.values);
  // What this request compares with, copied: a concurrent request may replace the kept total meanwhile.
  const known = { ...entry.totals };
  const values = await entry.page.values(entry.folded ? extend(placeholders, { [VERSION]: known.version }) : placeholders);
  return pageOfValues(entry, known, values);
}

export interface KeptPageResult<Row> {
  rows: Row[];
  total: number;
  limit: number | null;
  offset: number;
}

/** What a statement read with the session check gave (`PendingRead`), for the operation to use when `key` is what it would read. */
export interface ReadAhead {
  key: string;
  values: unknown[][];
  /** A kept list's page (`keptPageReadAhead`): the kept total the statement compared its versions with. */
  known?: KeptTotal;
}

/** A statement to read in the same round trip as another: its SQL, its parameters with drizzle placeholders, and their values. */
export interface PendingRead {
  sql: string;
  params: unknown[];
  placeholders: Record<string, unknown>;
  /** What the operation takes once the values are read (`keptPage`, or the service view of ADR 0016). */
  readAhead(values: unknown[][]): ReadAhead;
}

/**
 * A kept list's page statement, to be read in the same round trip as the session check before that check
 * has decided anything (docs/adr/0016-list-read-ahead.md). `guard` is an SQL condition on the request's
 * caller (its placeholders filled by whoever reads the statement): the page's LIMIT is 0 unless the guard
 * holds, which SQLite evaluates once before the scan, so a caller the guard refuses costs an index probe,
 * not the page. Undefined when the list cannot be read so (the guarded statement would bind more than D1's
 * parameters); the list is then read after the session check as usual.
 */
export function keptPageReadAhead(db: Db, key: string, build: () => KeptPageQuery, placeholders: Record<string, unknown>, guard: SQL): PendingRead | undefined {
  const entry = keptEntry(db, key, build);
  if (entry.guarded === undefined) {
    const guarded = entry.guardedOf(guard);
    entry.guarded = guarded.getQuery().params.length <= MAX_PARAMS ? guarded : null;
  }
  if (entry.guarded === null) return undefined;
  const known = { ...entry.totals };
  const query = entry.guarded.getQuery() as { sql: string; params: unknown[] };
  return {
    sql: query.sql,
    params: query.params,
    placeholders: entry.folded ? extend(placeholders, { [VERSION]: known.version }) : placeholders,
    readAhead: (values) => ({ key, known, values }),
  };
}

/** The kept entry of a list request, built on first use. */
function keptEntry(db: Db, key: string, build: () => KeptPageQuery): KeptPageEntry {
  let store = kept.get(db);
  if (!store) kept.set(db, (store = { pages: new Map(), totals: new Map() }));
  const { totals } = store;
  return touch(store.pages, key, KEPT_PAGES, () => {
    const q = build();
    // drizzle's builders are typed per table; this generic code works on any table and selection.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const anyDb = db as any;
    const countSql = anyDb.select({ n: count() }).from(q.table).where(q.where).toSQL() as { sql: string; params: unknown[] };
    const version = versionExpression(q.versions, countSql.sql);
    const countQuery = anyDb.select({ version: version.mapWith(String), n: count() }).from(q.table).where(q.where).prepare() as KeptPageEntry['count'];
    // The page's own columns first, then the versions and (folded) the total: the last values of each row.
    const { fields, map } = flatSelection(q.selection);
    // The limit as given, or (guarded) 0 unless the guard holds: SQLite evaluates LIMIT once, before the scan.
    const pageOf = (extra: Record<string, SQL | SQL.Aliased>, guard?: SQL) =>
      anyDb
        .select({ ...fields, [VERSION]: version.as(VERSION), ...extra })
        .from(q.table)
        .where(q.where)
        .orderBy(...q.orderBy)
        .limit(guard ? sql`CASE WHEN ${guard} THEN ${q.limit ?? -1} ELSE 0 END` : (q.limit ?? -1))
        .offset(q.offset)
        .prepare() as KeptPageEntry['page'];
    const counted = sql`(select count(*) from ${q.table}${q.where ? sql` where ${q.where}` : sql``})`;
    const total = sql`CASE WHEN ${version} = ${sql.placeholder(VERSION)} THEN NULL ELSE ${counted} END`.as(TOTAL);
    let page = pageOf({ [TOTAL]: total });
    const folded = page.getQuery().params.length <= MAX_PARAMS;
    if (!folded) page = pageOf({});
    const guardedOf = (guard: SQL) => pageOf(folded ? { [TOTAL]: total } : {}, guard);
    // Pages of one filter (other offsets, sorts) share its total.
    const totalKey = `${countSql.sql}\u0000${JSON.stringify(countSql.params)}`;
    return { page, map, folded, count: countQuery, totals: touch(totals, totalKey, KEPT_TOTALS, () => ({ version: null, total: 0 }))!, limit: q.limit, offset: q.offset, guardedOf };
  })!;
}

/** The page and its total from the values its statement read, with the kept total the statement compared with. */
async function pageOfValues<Row>(entry: KeptPageEntry, known: KeptTotal, values: unknown[][]): Promise<KeptPageResult<Row>> {
  const { limit, offset, folded } = entry;
  const rows = values.map(entry.map) as Row[];
  if (values.length === 0) {
    // No row carries the versions: nothing matches, or the page lies past the end (the second statement).
    return { rows, total: offset === 0 ? 0 : await recount(entry), limit, offset };
  }
  const last = values[0].length - 1;
  const seen = values[0][folded ? last - 1 : last];
  const version = seen === null ? null : String(seen);
  let total: number;
  if (folded) total = values[0][last] === null ? known.total : keep(entry, version, Number(values[0][last]));
  else total = version !== null && version === known.version ? known.total : await recount(entry);
  return { rows, total, limit, offset };
}

/** Counts in a statement of its own, with the versions that count saw, and keeps it. */
async function recount(entry: KeptPageEntry): Promise<number> {
  const [c] = await entry.count.all();
  return keep(entry, c?.version ?? null, Number(c?.n ?? 0));
}

/** Keeps a fresh count with the versions it was counted at (NULL ones never match) and returns it. */
function keep(entry: KeptPageEntry, version: string | null, total: number): number {
  entry.totals.version = version;
  entry.totals.total = total;
  return total;
}
