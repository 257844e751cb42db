import { and, count, eq, sql, type SQL } from 'drizzle-orm';
import { resetFailures } from '../../auth/repo.js';
import type { Db } from '../../db/client.js';
import { apiSessions, authenticators, identities } from '../../db/schema/index.js';
import { qualified as q, type Statement } from '../../crud/repo.js';

/**
 * The insert takes its `identity_id` from the identity row itself (`(SELECT id FROM identities WHERE id = ?)`):
 * when the identity is gone (deleted while the password was being hashed) the value is NULL and the NOT
 * NULL column refuses the row, so no authenticator outlives its identity. `missingIdentity` recognises it.
 */
export function insertAuthenticator(db: Db, values: Record<string, unknown>): Statement {
  return db.insert(authenticators).values({ ...(values as typeof authenticators.$inferInsert), identityId: sql`(SELECT ${q(identities.id)} FROM ${identities} WHERE ${q(identities.id)} = ${values.identityId})` });
}

/** The conditional insert found no identity (see `authenticatorEntity`). */
export function missingIdentity(error: unknown): boolean {
  return causeChain(error).some((m) => /NOT NULL constraint failed: authenticators\.identity_id/i.test(m));
}

/** The store refused a second password authenticator for an identity (`authenticators_identity_updb_uq`). */
export function secondUpdb(error: unknown): boolean {
  return causeChain(error).some((m) => /UNIQUE constraint failed: authenticators\.identity_id/i.test(m));
}

function causeChain(error: unknown): string[] {
  const out: string[] = [];
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) out.push(String((e as Error).message ?? e));
  return out;
}

/** The owning identity's name, selected with each authenticator for its `identity` entityRef. */
export function authenticatorExtras() {
  return { identityName: sql<string | null>`(SELECT ${q(identities.name)} FROM ${identities} WHERE ${q(identities.id)} = ${q(authenticators.identityId)})` };
}

export function authenticatorsOfIdentity(identityId: string): SQL {
  return eq(authenticators.identityId, identityId);
}

export async function countIdentityMethod(db: Db, identityId: string, method: 'updb' | 'cert'): Promise<number> {
  const rows = await db.select({ n: count() }).from(authenticators).where(and(eq(authenticators.identityId, identityId), eq(authenticators.method, method)));
  return rows[0]?.n ?? 0;
}

/** A changed password also ends a run of failed attempts. */
export function passwordChangedStatements(db: Db, authenticatorId: string): Statement[] {
  return [resetFailures(db, authenticatorId)];
}

/** Deletes one authenticator (a statement for a batch that also writes what replaces it). */
export function removeAuthenticator(db: Db, id: string): Statement {
  return db.delete(authenticators).where(eq(authenticators.id, id));
}

/** What goes with a deleted authenticator: the API sessions created with it and its failed-attempt row. */
export function authenticatorCascade(db: Db, authenticatorId: string): Statement[] {
  return [db.delete(apiSessions).where(eq(apiSessions.authenticatorId, authenticatorId)), resetFailures(db, authenticatorId)];
}
