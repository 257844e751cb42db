import { and, count, eq, sql, type SQL } from 'drizzle-orm';
import { resetFailures } from '../../auth/repo.js';
import type { Db } from '../../db/client.js';
import { apiSessions, authenticators, identities } from '../../db/schema/index.js';
import { qualified as q, type Statement } from '../../crud/repo.js';

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

/** What goes with a deleted authenticator: the API sessions created with it and its failed-attempt row. */
export function authenticatorCascade(db: Db, authenticatorId: string): Statement[] {
  return [db.delete(apiSessions).where(eq(apiSessions.authenticatorId, authenticatorId)), resetFailures(db, authenticatorId)];
}
