import { and, eq, lt, sql } from 'drizzle-orm';
import { authQueries } from '../auth/auth-queries.js';
import type { Db } from '../db/client.js';
import { apiSessions, authPolicies, identities } from '../db/schema/index.js';
import type { Deps } from '../deps.js';
import { isUuid } from '../lib/ids.js';

export type ApiSessionRow = typeof apiSessions.$inferSelect;
export type IdentityRow = typeof identities.$inferSelect;
export type AuthPolicyRow = typeof authPolicies.$inferSelect;

/**
 * What every authenticated request knows of its identity and auth policy. Deliberately lean: this read
 * runs on every authenticated request, and each column costs (libSQL builds row objects per column), so
 * the full rows are read only by the operations that render or change them.
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
};
const sessionPolicyColumns = {
  id: authPolicies.id,
  name: authPolicies.name,
  requireTotp: authPolicies.requireTotp,
  requireExtJwtSigner: authPolicies.requireExtJwtSigner,
};
export type SessionIdentity = Pick<IdentityRow, keyof typeof sessionIdentityColumns>;
export type SessionPolicy = Pick<AuthPolicyRow, keyof typeof sessionPolicyColumns>;

/** The caller of a request, resolved from its `zt-session` header in one indexed read. */
export interface RequestSession {
  apiSession: ApiSessionRow;
  identity: SessionIdentity;
  authPolicy: SessionPolicy;
  /** Outstanding auth queries (MFA, secondary ext-jwt); empty when fully authenticated. */
  authQueries: ReturnType<typeof authQueries>;
  /** No auth query outstanding. */
  fullyAuthenticated: boolean;
  /**
   * The identity is an admin *and* the session is fully authenticated. Unlike the controller, outstanding
   * MFA withholds admin rights too (reference auth-and-pki §1.2 quirk; docs/auth.md).
   */
  isAdmin: boolean;
  /** When the session expires if nothing else happens (last activity + timeout). */
  expiresAt: number;
}

/** Activity is written at most once a minute per session: reads must not turn into writes. */
export const ACTIVITY_WRITE_INTERVAL_MS = 60_000;

export function isDisabled(identity: Pick<IdentityRow, 'disabledAt' | 'disabledUntil'>, now: number): boolean {
  return identity.disabledAt !== null && (identity.disabledUntil === null || identity.disabledUntil > now);
}

/** A session is live while its last recorded activity is within the inactivity timeout. */
export function isExpired(apiSession: Pick<ApiSessionRow, 'lastActivityAt'>, now: number, timeoutSeconds: number): boolean {
  return apiSession.lastActivityAt + timeoutSeconds * 1000 < now;
}

function prepareSessionLookup(db: Db) {
  return db
    .select({ apiSession: apiSessions, identity: sessionIdentityColumns, authPolicy: sessionPolicyColumns })
    .from(apiSessions)
    .innerJoin(identities, eq(identities.id, apiSessions.identityId))
    .leftJoin(authPolicies, eq(authPolicies.id, identities.authPolicyId))
    .where(eq(apiSessions.token, sql.placeholder('token')))
    .limit(1)
    .prepare();
}

/** Prepared once per database handle: building the query costs as much as running it. */
const sessionLookups = new WeakMap<Db, ReturnType<typeof prepareSessionLookup>>();
function sessionLookup(db: Db) {
  let lookup = sessionLookups.get(db);
  if (!lookup) {
    lookup = prepareSessionLookup(db);
    sessionLookups.set(db, lookup);
  }
  return lookup;
}

/**
 * Loads the API session for a token. Expired sessions, and sessions of disabled identities, are deleted
 * and read as absent; so is a session whose identity or auth policy no longer exists.
 * `defer` receives the (rare) writes so the runtime can run them after the response.
 */
export async function loadSession(deps: Deps, token: string, defer: (write: Promise<unknown>) => void): Promise<RequestSession | undefined> {
  // A value that is not a UUID cannot be a token: skip the read entirely.
  if (!isUuid(token)) return undefined;
  const rows = await sessionLookup(deps.db).all({ token });
  const row = rows[0];
  if (!row || !row.authPolicy?.id) return undefined;
  const now = deps.now();
  const timeoutSeconds = deps.config.sessionTimeoutSeconds;
  const { apiSession, identity } = row;
  const authPolicy = row.authPolicy as SessionPolicy;
  if (isExpired(apiSession, now, timeoutSeconds) || isDisabled(identity, now)) {
    defer(deps.db.delete(apiSessions).where(eq(apiSessions.id, apiSession.id)).run());
    return undefined;
  }
  let lastActivityAt = apiSession.lastActivityAt;
  if (now - lastActivityAt >= ACTIVITY_WRITE_INTERVAL_MS) {
    lastActivityAt = now;
    // Conditional, so that concurrent requests at the minute boundary write the row once.
    defer(
      deps.db
        .update(apiSessions)
        .set({ lastActivityAt: now, updatedAt: now })
        .where(and(eq(apiSessions.id, apiSession.id), lt(apiSessions.lastActivityAt, now - ACTIVITY_WRITE_INTERVAL_MS + 1)))
        .run(),
    );
  }
  const current = { ...apiSession, lastActivityAt, updatedAt: lastActivityAt === apiSession.lastActivityAt ? apiSession.updatedAt : now };
  const queries = authQueries(current, authPolicy);
  const fullyAuthenticated = queries.length === 0;
  return {
    apiSession: current,
    identity,
    authPolicy,
    authQueries: queries,
    fullyAuthenticated,
    isAdmin: fullyAuthenticated && (identity.isAdmin || identity.isDefaultAdmin),
    expiresAt: lastActivityAt + timeoutSeconds * 1000,
  };
}
