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
