import { and, eq, or } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client.js';
import { apiSessions, authAttempts, authenticators, authPolicies, identities } from '../db/schema/index.js';

const adminColumns = {
  identityId: identities.id,
  identityName: identities.name,
  authenticatorId: authenticators.id,
  username: authenticators.username,
  policy: authPolicies,
};

/** The admin (isAdmin or default admin) whose password authenticator has this username. */
export async function findAdminByUsername(db: Db, username: string) {
  const rows = await db
    .select(adminColumns)
    .from(authenticators)
    .innerJoin(identities, eq(identities.id, authenticators.identityId))
    .leftJoin(authPolicies, eq(authPolicies.id, identities.authPolicyId))
    .where(and(eq(authenticators.username, username), eq(authenticators.method, 'updb'), or(eq(identities.isAdmin, true), eq(identities.isDefaultAdmin, true))))
    .limit(1);
  return rows[0];
}

/** The default admin, with its password authenticator if it still has one. */
export async function findDefaultAdmin(db: Db) {
  const rows = await db
    .select(adminColumns)
    .from(identities)
    .leftJoin(authenticators, and(eq(authenticators.identityId, identities.id), eq(authenticators.method, 'updb')))
    .leftJoin(authPolicies, eq(authPolicies.id, identities.authPolicyId))
    .where(eq(identities.isDefaultAdmin, true))
    .limit(1);
  return rows[0];
}

export async function usernameTaken(db: Db, username: string): Promise<boolean> {
  const rows = await db.select({ id: authenticators.id }).from(authenticators).where(eq(authenticators.username, username)).limit(1);
  return rows.length > 0;
}

/**
 * Sets the password hash, clears the failed-attempt count, re-enables a locked-out identity and ends
 * its API sessions: one batch, so a reset is all or nothing.
 */
export function resetStatements(db: Db, target: { identityId: string; authenticatorId: string; passwordHash: string; now: number; create?: { username: string } }): BatchItem<'sqlite'>[] {
  const { identityId, authenticatorId, passwordHash, now } = target;
  const write = target.create
    ? db.insert(authenticators).values({ id: authenticatorId, identityId, method: 'updb', username: target.create.username, passwordHash, createdAt: now, updatedAt: now, tags: '{}' })
    : db.update(authenticators).set({ passwordHash, updatedAt: now }).where(and(eq(authenticators.id, authenticatorId), eq(authenticators.method, 'updb')));
  return [
    write,
    db.delete(authAttempts).where(eq(authAttempts.authenticatorId, authenticatorId)),
    db.update(identities).set({ disabledAt: null, disabledUntil: null, updatedAt: now }).where(eq(identities.id, identityId)),
    db.delete(apiSessions).where(eq(apiSessions.identityId, identityId)),
  ];
}
