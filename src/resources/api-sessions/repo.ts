import { and, eq, getTableColumns, gte, inArray, lt, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { identityEnabledAt } from '../../auth/repo.js';
import { pageWithTotal } from '../../db/list-page.js';
import { keptStatement, type Db } from '../../db/client.js';
import { apiSessions, identities } from '../../db/schema/index.js';
import type { ResolvedListQuery } from '../../crud/list-query.js';
import { extend } from '../../lib/objects.js';

const columns = { apiSession: apiSessions, identityName: identities.name };

/** The identity's name as a correlated subquery, so that a page stays a one-table query (src/db/list-page.ts). */
const listColumns = { apiSession: apiSessions, identityName: sql<string | null>`(SELECT ${identities.name} FROM ${identities} WHERE ${identities.id} = ${apiSessions.identityId})` };

/** Live sessions (last activity at or after `liveSince`), filtered, sorted and paged, with their total: one statement. */
export async function listApiSessions(db: Db, q: ResolvedListQuery, liveSince: number) {
  const where = and(gte(apiSessions.lastActivityAt, liveSince), q.where);
  return pageWithTotal<{ apiSession: typeof apiSessions.$inferSelect; identityName: string | null }>(db, apiSessions, listColumns, { where, orderBy: q.orderBy, limit: q.limit, offset: q.offset });
}

export async function findApiSession(db: Db, id: string, liveSince: number) {
  const rows = await db
    .select(columns)
    .from(apiSessions)
    .leftJoin(identities, eq(identities.id, apiSessions.identityId))
    .where(and(eq(apiSessions.id, id), gte(apiSessions.lastActivityAt, liveSince)))
    .limit(1);
  return rows[0];
}

/** Deletes one session; false when there was none. */
export async function deleteApiSession(db: Db, id: string): Promise<boolean> {
  const rows = await db.delete(apiSessions).where(eq(apiSessions.id, id)).returning({ id: apiSessions.id });
  return rows.length > 0;
}

/**
 * Deletes up to `max` sessions whose last activity is before `cutoff`, oldest first through the
 * last-activity index; returns how many it deleted.
 */
export async function deleteExpiredSessions(db: Db, cutoff: number, max: number): Promise<number> {
  const expired = db.select({ id: apiSessions.id }).from(apiSessions).where(lt(apiSessions.lastActivityAt, cutoff)).orderBy(apiSessions.lastActivityAt).limit(max);
  const rows = await db.delete(apiSessions).where(inArray(apiSessions.id, expired)).returning({ id: apiSessions.id });
  return rows.length;
}

type ApiSessionInsert = typeof apiSessions.$inferSelect;

/**
 * The session insert of a login, conditional on its identity being enabled at `now`: an
 * `INSERT ... SELECT ... WHERE EXISTS (enabled identity)`, so that a login racing a disable or a lockout
 * keeps no session whichever commits first (the disable deletes sessions that were inserted before it).
 */
export function insertApiSessionWhileEnabled(db: Db, row: ApiSessionInsert, now: number): BatchItem<'sqlite'> {
  return sessionInsert(db, extend(row, { now }));
}

/** Built once per handle (every login writes it): the row's columns and `now` are placeholders. */
const sessionInsert = keptStatement((db) => {
  const values = Object.entries(getTableColumns(apiSessions)).map(([key, column]) => sql.param(sql.placeholder(key), column));
  return db
    .insert(apiSessions)
    .select(sql`SELECT ${sql.join(values, sql`, `)} WHERE ${identityEnabledAt(sql.placeholder('identityId'), sql.placeholder('now'))}`)
    .returning({ id: apiSessions.id })
    .prepare();
});

/**
 * Runs a login's batch: the conditional session insert first, then the statements that go with it.
 * Returns whether the session was created (false: the identity was disabled when the batch ran).
 */
export async function createApiSession(db: Db, row: ApiSessionInsert, now: number, statements: BatchItem<'sqlite'>[]): Promise<boolean> {
  const batch = db as unknown as { batch(items: BatchItem<'sqlite'>[]): Promise<unknown[]> };
  const [inserted] = await batch.batch([insertApiSessionWhileEnabled(db, row, now), ...statements]);
  return Array.isArray(inserted) && inserted.length > 0;
}
