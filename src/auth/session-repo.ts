/**
 * The store side of the session check that every authenticated request makes: one indexed read by
 * token hash (session, identity and auth policy in one statement), and the rare writes it defers.
 */
import { and, eq, getTableColumns, lt, sql } from 'drizzle-orm';
import { preparedPer, type Db } from '../db/client.js';
import { apiSessions, authPolicies, identities } from '../db/schema/index.js';
import type { AuthPolicyRow, IdentityRow } from '../db/schema/rows.js';

/**
 * What every authenticated request knows of its identity and auth policy. Deliberately lean: each
 * column costs on every request, so the full rows are read only by the operations that render or
 * change them.
 */
const sessionIdentityColumns = {
  id: identities.id,
  name: identities.name,
  typeId: identities.typeId,
  isAdmin: identities.isAdmin,
  isDefaultAdmin: identities.isDefaultAdmin,
  authPolicyId: identities.authPolicyId,
  disabledAt: identities.disabledAt,
  disabledUntil: identities.disabledUntil,
  // service-updates answers from the session check alone: pollers cost no extra read.
  servicesChangedAt: identities.servicesChangedAt,
};
/** Every session column but the hash the lookup matched on: nothing renders it, so nothing reads it. */
const { tokenHash: _matchedOn, ...sessionColumns } = getTableColumns(apiSessions);
const sessionPolicyColumns = {
  id: authPolicies.id,
  name: authPolicies.name,
  requireTotp: authPolicies.requireTotp,
  requireExtJwtSigner: authPolicies.requireExtJwtSigner,
};
export type SessionIdentity = Pick<IdentityRow, keyof typeof sessionIdentityColumns>;
export type SessionPolicy = Pick<AuthPolicyRow, keyof typeof sessionPolicyColumns>;

function prepareSessionLookup(db: Db) {
  return db
    .select({ apiSession: sessionColumns, identity: sessionIdentityColumns, authPolicy: sessionPolicyColumns })
    .from(apiSessions)
    .innerJoin(identities, eq(identities.id, apiSessions.identityId))
    .leftJoin(authPolicies, eq(authPolicies.id, identities.authPolicyId))
    .where(eq(apiSessions.tokenHash, sql.placeholder('tokenHash')))
    .limit(1)
    .prepare();
}

/** Prepared once per database handle: building the query costs as much as running it. */
const sessionLookup = preparedPer(prepareSessionLookup);

/** The session with this token hash, its identity and auth policy (null when the policy is gone). */
export async function findSessionByTokenHash(db: Db, tokenHash: string) {
  // get(): one row, one native call (all() builds an iterator per call).
  return sessionLookup(db).get({ tokenHash });
}

export function deleteSessionById(db: Db, id: string): Promise<unknown> {
  return db.delete(apiSessions).where(eq(apiSessions.id, id)).run();
}

/**
 * Records activity unless another request already did within `intervalMs`: conditional, so that
 * concurrent requests at the interval boundary write the row once.
 */
export function touchSession(db: Db, id: string, now: number, intervalMs: number): Promise<unknown> {
  return db
    .update(apiSessions)
    .set({ lastActivityAt: now, updatedAt: now })
    .where(and(eq(apiSessions.id, id), lt(apiSessions.lastActivityAt, now - intervalMs + 1)))
    .run();
}
