import { and, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import { listPage } from '../../db/list-page.js';
import type { Db } from '../../db/client.js';
import { apiSessions, identities } from '../../db/schema/index.js';
import type { ResolvedListQuery } from '../../http/list-query.js';

const columns = { apiSession: apiSessions, identityName: identities.name };

/** The identity's name as a correlated subquery, so that a page stays a one-table query (src/db/list-page.ts). */
const listColumns = { apiSession: apiSessions, identityName: sql<string | null>`(SELECT ${identities.name} FROM ${identities} WHERE ${identities.id} = ${apiSessions.identityId})` };

/** Live sessions (last activity at or after `liveSince`), filtered, sorted and paged, with their total: one statement. */
export async function listApiSessions(db: Db, q: ResolvedListQuery, liveSince: number) {
  const where = and(gte(apiSessions.lastActivityAt, liveSince), q.where);
  return listPage<{ apiSession: typeof apiSessions.$inferSelect; identityName: string | null }>(db, apiSessions, listColumns, { where, orderBy: q.orderBy, limit: q.limit, offset: q.offset });
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

/** Deletes up to `max` sessions whose last activity is before `cutoff` (the serverless expiry enforcer). */
export async function deleteExpiredSessions(db: Db, cutoff: number, max: number): Promise<void> {
  await db.delete(apiSessions).where(inArray(apiSessions.id, db.select({ id: apiSessions.id }).from(apiSessions).where(lt(apiSessions.lastActivityAt, cutoff)).limit(max)));
}
