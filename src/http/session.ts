import { authQueries } from '../auth/auth-queries.js';
import { deleteSessionById, findSessionByTokenHash, touchSession, type SessionIdentity, type SessionPolicy } from '../auth/session-repo.js';
import { isDisabled, isExpired } from '../auth/identity-state.js';
import { hashSessionToken } from '../auth/session-token.js';
import type { ApiSessionRow, ApiSessionWithToken, IdentityRow } from '../db/schema/rows.js';
import type { Deps } from '../deps.js';
import { isUuid } from '../lib/ids.js';

// Row types live with the schema (src/db/schema/rows.ts); re-exported for the modules that take them from here.
export type { ApiSessionRow, ApiSessionWithToken, AuthPolicyRow, IdentityRow } from '../db/schema/rows.js';
export type { SessionIdentity, SessionPolicy } from '../auth/session-repo.js';

/** The caller of a request, resolved from its `zt-session` header in one indexed read. */
export interface RequestSession {
  /** The stored session and the token the caller presented (the store keeps only its hash). */
  apiSession: ApiSessionWithToken;
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


/**
 * Loads the API session for a token. Expired sessions, and sessions of disabled identities, are deleted
 * and read as absent; so is a session whose identity or auth policy no longer exists.
 * `defer` receives the (rare) writes so the runtime can run them after the response.
 */
export async function loadSession(deps: Deps, token: string, defer: (write: Promise<unknown>) => void): Promise<RequestSession | undefined> {
  // A value that is not a UUID cannot be a token: skip the read entirely.
  if (!isUuid(token)) return undefined;
  const tokenHash = await hashSessionToken(token);
  // A replica may not have the session yet (login answered by the primary a moment ago): ask the primary.
  const row = (await findSessionByTokenHash(deps.db, tokenHash)) ?? (deps.primaryDb ? await findSessionByTokenHash(deps.primaryDb, tokenHash) : undefined);
  if (!row || !row.authPolicy?.id) return undefined;
  const now = deps.now();
  const timeoutSeconds = deps.config.sessionTimeoutSeconds;
  const { apiSession, identity } = row;
  const authPolicy = row.authPolicy as SessionPolicy;
  if (isExpired(apiSession, now, timeoutSeconds) || isDisabled(identity, now)) {
    defer(deleteSessionById(deps.db, apiSession.id));
    return undefined;
  }
  let lastActivityAt = apiSession.lastActivityAt;
  if (now - lastActivityAt >= ACTIVITY_WRITE_INTERVAL_MS) {
    lastActivityAt = now;
    defer(touchSession(deps.db, apiSession.id, now, ACTIVITY_WRITE_INTERVAL_MS));
  }
  const current = { ...apiSession, token, lastActivityAt, updatedAt: lastActivityAt === apiSession.lastActivityAt ? apiSession.updatedAt : now };
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
