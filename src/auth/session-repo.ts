/**
 * The store side of the session check that every authenticated request makes: one indexed read by
 * token hash (session, identity and auth policy in one statement), and the rare writes it defers.
 */
import { and, eq, getTableColumns, lt, sql } from 'drizzle-orm';
import type { SelectedFields } from 'drizzle-orm/sqlite-core';
import { preparedPer, type Db } from '../db/client.js';
import { flatSelection } from '../db/list-page.js';
import { apiSessions, authPolicies, identities } from '../db/schema/index.js';
import type { ApiSessionRow, AuthPolicyRow, IdentityRow } from '../db/schema/rows.js';

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

/** The lookup's columns in a fixed order, and what maps its value array back to the nested row. */
const sessionSelection = flatSelection({ apiSession: sessionColumns, identity: sessionIdentityColumns, authPolicy: sessionPolicyColumns });

export interface SessionLookupRow {
  apiSession: Omit<ApiSessionRow, 'tokenHash'>;
  identity: SessionIdentity;
  /** All null when the identity's policy is gone (left join). */
  authPolicy: SessionPolicy | { [K in keyof SessionPolicy]: null };
}

function prepareSessionLookup(db: Db) {
  return db
    .select(sessionSelection.fields as SelectedFields)
    .from(apiSessions)
    .innerJoin(identities, eq(identities.id, apiSessions.identityId))
    .leftJoin(authPolicies, eq(authPolicies.id, identities.authPolicyId))
    .where(eq(apiSessions.tokenHash, sql.placeholder('tokenHash')))
    .limit(1)
    .prepare();
}

/** Prepared once per database handle: building the query costs as much as running it. */
const sessionLookup = preparedPer(prepareSessionLookup);

/**
 * The session with this token hash, its identity and auth policy. Read as one value array and mapped
 * by the selection's own decoders: drizzle's nested row mapping cost ~4 % of a request.
 */
export async function findSessionByTokenHash(db: Db, tokenHash: string): Promise<SessionLookupRow | undefined> {
  const values = (await sessionLookup(db).values({ tokenHash })) as unknown[][];
  return values.length === 0 ? undefined : (sessionSelection.map(values[0]) as unknown as SessionLookupRow);
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
