/**
 * A list page and its total in one statement: the total is an uncorrelated scalar subquery, which
 * SQLite evaluates once, while the page itself keeps its plan (an index that gives the order still
 * stops the scan after `limit` rows). One round trip instead of two matters most on D1 and remote
 * libSQL, where every statement is a network call.
 *
 * Not `count(*) over ()`: a window over the whole result makes SQLite materialise and sort every
 * matching row before the limit applies.
 *
 * The filter's parameters are bound twice (page and total): with D1's 100-parameter limit, a filter
 * may use at most ~45 of them before the page's own.
 */
import { count, sql, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './client.js';

export interface PageQuery {
  where?: SQL;
  orderBy: SQL[];
  /** null = no limit. */
  limit: number | null;
  offset: number;
}

const TOTAL = '__total';

export async function pageWithTotal<Row>(db: Db, table: SQLiteTable, selection: Record<string, unknown>, q: PageQuery): Promise<{ rows: Row[]; total: number }> {
  const total = sql<number>`(select count(*) from ${table}${q.where ? sql` where ${q.where}` : sql``})`.mapWith(Number);
  // drizzle's builders are typed per table; this generic code works on any table and selection.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const found = (await (db as any)
    .select({ ...selection, [TOTAL]: total })
    .from(table)
    .where(q.where)
    .orderBy(...q.orderBy)
    .limit(q.limit ?? -1)
    .offset(q.offset)) as (Row & { [TOTAL]: number })[];
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
  selection: Record<string, unknown>;
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
  getQuery(): { sql: string; params: unknown[] };
}

interface KeptPageEntry {
  page: Prepared<Record<string, unknown>>;
  count: Prepared<{ version: string | null; n: number }>;
  totals: KeptTotal;
  limit: number | null;
  offset: number;
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
 */
export async function keptPage<Row>(db: Db, key: string, build: () => KeptPageQuery, placeholders: Record<string, unknown> = {}): Promise<{ rows: Row[]; total: number; limit: number | null; offset: number }> {
  let store = kept.get(db);
  if (!store) kept.set(db, (store = { pages: new Map(), totals: new Map() }));
  const { totals } = store;
  const entry = touch(store.pages, key, KEPT_PAGES, () => {
    const q = build();
    // drizzle's builders are typed per table; this generic code works on any table and selection.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const anyDb = db as any;
    const counted = sql`(select count(*) from ${q.table}${q.where ? sql` where ${q.where}` : sql``})`;
    const countQuery = anyDb.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(q.table).where(q.where);
    const countSql = countQuery.toSQL() as { sql: string; params: unknown[] };
    const version = versionExpression(q.versions, countSql.sql);
    const count = anyDb.select({ version: version.mapWith(String), n: sql<number>`count(*)`.mapWith(Number) }).from(q.table).where(q.where).prepare() as KeptPageEntry['count'];
    const page = anyDb
      .select({
        ...q.selection,
        [VERSION]: version,
        [TOTAL]: sql`CASE WHEN ${version} = ${sql.placeholder(VERSION)} THEN NULL ELSE ${counted} END`,
      })
      .from(q.table)
      .where(q.where)
      .orderBy(...q.orderBy)
      .limit(q.limit ?? -1)
      .offset(q.offset)
      .prepare() as KeptPageEntry['page'];
    // Pages of one filter (other offsets, sorts) share its total.
    const totalKey = `${countSql.sql}\u0000${JSON.stringify(countSql.params)}`;
    return { page, count, totals: touch(totals, totalKey, KEPT_TOTALS, () => ({ version: null, total: 0 }))!, limit: q.limit, offset: q.offset };
  })!;
  // What this request compares with, copied: a concurrent request may replace the kept total meanwhile.
  const known = { ...entry.totals };
  const found = (await entry.page.all({ ...placeholders, [VERSION]: known.version })) as (Row & { [VERSION]: string | null; [TOTAL]: number | null })[];
  if (found.length === 0) {
    // No row carries the total: nothing matches, or the page lies past the end (the second statement).
    if (entry.offset === 0) return { rows: [], total: 0, limit: entry.limit, offset: entry.offset };
    const [c] = await entry.count.all();
    return { rows: [], total: keep(entry, c?.version ?? null, Number(c?.n ?? 0)), limit: entry.limit, offset: entry.offset };
  }
  const first = found[0];
  const total = first[TOTAL] === null ? known.total : keep(entry, first[VERSION], Number(first[TOTAL]));
  for (const r of found) {
    delete (r as Partial<Record<string, unknown>>)[TOTAL];
    delete (r as Partial<Record<string, unknown>>)[VERSION];
  }
  return { rows: found as Row[], total, limit: entry.limit, offset: entry.offset };
}

/** Keeps a fresh count with the versions it was counted at (NULL ones never match) and returns it. */
function keep(entry: KeptPageEntry, version: string | null, total: number): number {
  entry.totals.version = version;
  entry.totals.total = total;
  return total;
}
