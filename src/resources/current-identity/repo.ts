import { and, count, eq, ne, sql } from 'drizzle-orm';
import type { ResolvedListQuery } from '../../crud/list-query.js';
import { listPage, uniqueViolation, type Statement } from '../../crud/repo.js';
import { atomic, preparedPer, type Db } from '../../db/client.js';
import { authenticators, edgeRouters, identities, mfas } from '../../db/schema/index.js';
import { reachable } from '../../policy/repo.js';
import type { AuthenticatorRow } from '../authenticators/entity.js';
import type { SessionRider } from '../../auth/session-repo.js';
import type { IdentityRow } from '../../db/schema/rows.js';

/** Over the caller's `identities` row: whether it has verified MFA, and its authenticators as one JSON array. */
const isMfaEnabled = sql<number>`EXISTS (SELECT 1 FROM ${mfas} AS m WHERE m.identity_id = "identities"."id" AND m.is_verified = 1)`;
// One row whatever the number of authenticators: a single-row read is the driver's cheap path.
const authenticatorList = sql<string>`(SELECT json_group_array(json_array(a.id, a.method, a.username, a.cert_fingerprint)) FROM ${authenticators} AS a WHERE a.identity_id = "identities"."id")`;

function prepareIdentityRead(db: Db) {
  return db
    .select({ identity: identities, isMfaEnabled, authenticators: authenticatorList })
    .from(identities)
    .where(eq(identities.id, sql.placeholder('id')))
    .prepare();
}

/** Read on its own when the session check did not carry `identityRider` (an OIDC access token has no session read). */
const identityRead = preparedPer(prepareIdentityRead);

export interface AuthenticatorSummary {
  id: string;
  method: string;
  username: string | null;
  fingerprint: string | null;
}

export interface IdentityWithAuthenticators {
  identity: IdentityRow;
  isMfaEnabled: boolean;
  authenticators: AuthenticatorSummary[];
}

function withAuthenticators(identity: IdentityRow, mfa: unknown, listed: string): IdentityWithAuthenticators {
  const summaries = (JSON.parse(listed) as [string, string, string | null, string | null][]).map(([id, method, username, fingerprint]) => ({ id, method, username, fingerprint }));
  return { identity, isMfaEnabled: Boolean(mfa), authenticators: summaries };
}

/**
 * `GET /current-identity` rides on the session check (`SessionRider`): the identity row and its
 * authenticators come with the session, in its statement, and the operation reads nothing more.
 */
export const identityRider: SessionRider<IdentityWithAuthenticators> = {
  selection: { currentIdentity: identities, currentIdentityMfa: isMfaEnabled, currentIdentityAuthenticators: authenticatorList },
  value: (row) => withAuthenticators(row.currentIdentity as IdentityRow, row.currentIdentityMfa, row.currentIdentityAuthenticators as string),
};

/** The identity row with its authenticators' summary fields, in one single-row read. */
export async function identityWithAuthenticators(db: Db, identityId: string): Promise<IdentityWithAuthenticators | undefined> {
  const row = await identityRead(db).get({ id: identityId });
  return row ? withAuthenticators(row.identity, row.isMfaEnabled, row.authenticators) : undefined;
}

export async function listIdentityAuthenticators(db: Db, identityId: string, q: ResolvedListQuery) {
  const where = and(eq(authenticators.identityId, identityId), q.where);
  return listPage(
    (p) => db.select().from(authenticators).where(where).orderBy(...q.orderBy).limit(p.limit).offset(p.offset),
    () => db.select({ n: count() }).from(authenticators).where(where),
    q,
  );
}

/** An authenticator only if it belongs to the identity: another identity's reads as absent. */
export async function findIdentityAuthenticator(db: Db, identityId: string, id: string): Promise<AuthenticatorRow | undefined> {
  const rows = await db.select().from(authenticators).where(and(eq(authenticators.id, id), eq(authenticators.identityId, identityId))).limit(1);
  return rows[0];
}

export async function usernameTaken(db: Db, username: string, exceptId: string): Promise<boolean> {
  const rows = await db.select({ id: authenticators.id }).from(authenticators).where(and(eq(authenticators.username, username), ne(authenticators.id, exceptId))).limit(1);
  return rows.length > 0;
}

export interface AuthenticatorChanges {
  username?: string;
  passwordHash?: string;
  tags?: string;
  updatedAt: number;
}

/**
 * Writes the changes with the extra statements in one batch. Returns false when the unique username
 * index refused them (a concurrent change took the name between the check and the write).
 */
export async function saveAuthenticator(db: Db, id: string, changes: AuthenticatorChanges, extra: Statement[]): Promise<boolean> {
  try {
    await atomic(db, [db.update(authenticators).set(changes).where(eq(authenticators.id, id)), ...extra]);
    return true;
  } catch (e) {
    if (uniqueViolation(e)) return false;
    throw e;
  }
}

/** Verified edge routers; with an identity, only those its edge router policies give it (§3.3 b). */
export function verifiedRouters(identityId: string | undefined) {
  const verified = eq(edgeRouters.isVerified, true);
  return identityId === undefined ? verified : and(verified, reachable('router', 'identity', identityId, ['erp']))!;
}
