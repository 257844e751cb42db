import { and, count, eq, gte, inArray, lt, notExists, sql } from 'drizzle-orm';
import { atomic } from '../../db/client.js';
import { qualified } from '../../http/crud.js';
import type { Db } from '../../db/client.js';
import { apiSessionCertificates, apiSessions, identities } from '../../db/schema/index.js';
import type { ResolvedListQuery } from '../../http/list-query.js';

const columns = { apiSession: apiSessions, identityName: identities.name };

/** Live sessions (last activity at or after `liveSince`), filtered, sorted and paged, with their total. */
export async function listApiSessions(db: Db, q: ResolvedListQuery, liveSince: number) {
  const where = and(gte(apiSessions.lastActivityAt, liveSince), q.where);
  const [rows, total] = await Promise.all([
    db
      .select(columns)
      .from(apiSessions)
      .leftJoin(identities, eq(identities.id, apiSessions.identityId))
      .where(where)
      .orderBy(...q.orderBy)
      .limit(q.limit ?? -1)
      .offset(q.offset),
    db.select({ n: count() }).from(apiSessions).where(where),
  ]);
  return { rows, total: total[0]?.n ?? 0 };
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
  await atomic(db, [
    db.delete(apiSessions).where(inArray(apiSessions.id, db.select({ id: apiSessions.id }).from(apiSessions).where(lt(apiSessions.lastActivityAt, cutoff)).limit(max))),
    // Session certificates end with their session, however it ended (logout, expiry, disable, authenticator
    // delete): the sweep removes those left without one. Lists only ever show the caller's own session's.
    db
      .delete(apiSessionCertificates)
      .where(inArray(apiSessionCertificates.id, db.select({ id: apiSessionCertificates.id }).from(apiSessionCertificates).where(notExists(db.select({ one: sql`1` }).from(apiSessions).where(eq(qualified(apiSessions.id), qualified(apiSessionCertificates.apiSessionId))))).limit(max))),
  ]);
}
