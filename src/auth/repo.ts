import { and, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client.js';
import { apiSessions, authAttempts, authenticators, authPolicies, identities } from '../db/schema/index.js';

/** The updb authenticator for a username (exact, case-sensitive), with its identity, policy and failure count, in one read. */
export async function findPasswordLogin(db: Db, username: string) {
  const rows = await db
    .select({ authenticator: authenticators, identity: identities, authPolicy: authPolicies, failedCount: authAttempts.failedCount })
    .from(authenticators)
    .innerJoin(identities, eq(identities.id, authenticators.identityId))
    .leftJoin(authPolicies, eq(authPolicies.id, identities.authPolicyId))
    .leftJoin(authAttempts, eq(authAttempts.authenticatorId, authenticators.id))
    .where(and(eq(authenticators.username, username), eq(authenticators.method, 'updb')))
    .limit(1);
  return rows[0];
}

/** Counts one more consecutive failure; returns the new count (one atomic upsert, so instances agree). */
export async function recordFailure(db: Db, authenticatorId: string, now: number): Promise<number> {
  const rows = await db
    .insert(authAttempts)
    .values({ authenticatorId, failedCount: 1, lastFailedAt: now })
    .onConflictDoUpdate({ target: authAttempts.authenticatorId, set: { failedCount: sql`${authAttempts.failedCount} + 1`, lastFailedAt: now } })
    .returning({ failedCount: authAttempts.failedCount });
  return rows[0]?.failedCount ?? 1;
}

export function resetFailures(db: Db, authenticatorId: string): BatchItem<'sqlite'> {
  return db.delete(authAttempts).where(eq(authAttempts.authenticatorId, authenticatorId));
}

/** Forgets the failed attempts of every authenticator of an identity (admin enable, identity delete: run it first). */
export function resetIdentityFailures(db: Db, identityId: string): BatchItem<'sqlite'> {
  return db.delete(authAttempts).where(inArray(authAttempts.authenticatorId, db.select({ id: authenticators.id }).from(authenticators).where(eq(authenticators.identityId, identityId))));
}

/** Disables an identity (a lockout or an admin action) until `until` (null = indefinitely): its API sessions end with it. */
export function disableIdentityStatements(db: Db, identityId: string, now: number, until: number | null): BatchItem<'sqlite'>[] {
  return [
    db.update(identities).set({ disabledAt: now, disabledUntil: until, updatedAt: now }).where(eq(identities.id, identityId)),
    db.delete(apiSessions).where(eq(apiSessions.identityId, identityId)),
  ];
}

export async function findAuthPolicy(db: Db, id: string) {
  const rows = await db.select().from(authPolicies).where(eq(authPolicies.id, id)).limit(1);
  return rows[0];
}
