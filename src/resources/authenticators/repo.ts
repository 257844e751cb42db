import { and, count, eq, sql, type SQL } from 'drizzle-orm';
import { resetFailures } from '../../auth/repo.js';
import type { Db } from '../../db/client.js';
import { apiSessions, authenticators, identities } from '../../db/schema/index.js';
import { defineEntity, qualified as q, type Statement } from '../../http/crud.js';
import { shortId } from '../../lib/ids.js';
import { authenticatorFields } from './fields.js';

export type AuthenticatorRow = typeof authenticators.$inferSelect;

/**
 * Authenticators as the management API writes them. Only `tags` is a plain property; the method,
 * identity, username and password hash are set by the service's rules.
 */
export const authenticatorEntity = defineEntity<AuthenticatorRow>({
  entity: 'authenticator',
  collection: 'authenticators',
  table: authenticators,
  fields: authenticatorFields,
  props: {},
  // Usernames are globally unique (reference auth-and-pki §2.2 quirk: the controller does not enforce it).
  unique: [
    { column: 'username', field: 'username' },
    { column: 'certFingerprint', field: 'certPem' },
  ],
  newId: shortId,
});

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
