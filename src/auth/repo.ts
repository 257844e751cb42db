import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client.js';
import { apiSessions, authAttempts, authenticators, authPolicies, identities, mfas } from '../db/schema/index.js';

/** Whether the identity row being read has a verified MFA enrolment (its sessions then start partial, §1.3 step 4). */
export const hasVerifiedMfa = sql<number>`EXISTS (SELECT 1 FROM ${mfas} AS m WHERE m.identity_id = "identities"."id" AND m.is_verified = 1)`;

/** The updb authenticator for a username (exact, case-sensitive), with its identity, policy, failure count and MFA state, in one read. */
export async function findPasswordLogin(db: Db, username: string) {
  const rows = await db
    .select({ authenticator: authenticators, identity: identities, authPolicy: authPolicies, failedCount: authAttempts.failedCount, hasVerifiedMfa })
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

/**
 * The `auth_attempts` key of an identity's failed second-factor attempts: per identity, not per
 * authenticator, so that a password login (which clears its authenticator's count) does not clear them.
 */
export function mfaAttemptKey(identityId: string): string {
  return `mfa:${identityId}`;
}

/** Forgets the failed attempts of every authenticator of an identity and of its MFA (admin enable, identity delete: run it first). */
export function resetIdentityFailures(db: Db, identityId: string): BatchItem<'sqlite'> {
  return db
    .delete(authAttempts)
    .where(
      or(
        inArray(authAttempts.authenticatorId, db.select({ id: authenticators.id }).from(authenticators).where(eq(authenticators.identityId, identityId))),
        eq(authAttempts.authenticatorId, mfaAttemptKey(identityId)),
      ),
    );
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
