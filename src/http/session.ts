import { eq } from 'drizzle-orm';
import { apiSessions, authPolicies, identities } from '../db/schema/index.js';
import type { Deps } from '../deps.js';
import { isUuid } from '../lib/ids.js';

export type ApiSessionRow = typeof apiSessions.$inferSelect;
export type IdentityRow = typeof identities.$inferSelect;
export type AuthPolicyRow = typeof authPolicies.$inferSelect;

/** The caller of a request, resolved from its `zt-session` header in one indexed read. */
export interface RequestSession {
  apiSession: ApiSessionRow;
  identity: IdentityRow;
  authPolicy: AuthPolicyRow | null;
  /** MFA still outstanding (a required TOTP not yet completed in this session). */
  mfaOutstanding: boolean;
  /** No auth query outstanding. */
  fullyAuthenticated: boolean;
  isAdmin: boolean;
  /** When the session expires if nothing else happens (last activity + timeout). */
  expiresAt: number;
}

/** Activity is written at most once a minute per session: reads must not turn into writes. */
export const ACTIVITY_WRITE_INTERVAL_MS = 60_000;

export function isMfaOutstanding(apiSession: ApiSessionRow, policy: AuthPolicyRow | null): boolean {
  return (apiSession.isMfaRequired || (policy?.requireTotp ?? false)) && !apiSession.isMfaComplete;
}

export function isDisabled(identity: IdentityRow, now: number): boolean {
  return identity.disabledAt !== null && (identity.disabledUntil === null || identity.disabledUntil > now);
}

/**
 * Loads the API session for a token. Expired sessions are deleted and read as absent.
 * `onActivity` receives the (rare) activity write so the runtime can run it after the response.
 */
export async function loadSession(
  deps: Deps,
  token: string,
  onActivity: (write: Promise<unknown>) => void,
): Promise<RequestSession | undefined> {
  // A value that is not a UUID cannot be a token: skip the read entirely.
  if (!isUuid(token)) return undefined;
  const rows = await deps.db
    .select({ apiSession: apiSessions, identity: identities, authPolicy: authPolicies })
    .from(apiSessions)
    .innerJoin(identities, eq(identities.id, apiSessions.identityId))
    .leftJoin(authPolicies, eq(authPolicies.id, identities.authPolicyId))
    .where(eq(apiSessions.token, token))
    .limit(1);
  const row = rows[0];
  if (!row) return undefined;
  const now = deps.now();
  const timeoutMs = deps.config.sessionTimeoutSeconds * 1000;
  const { apiSession, identity, authPolicy } = row;
  if (apiSession.lastActivityAt + timeoutMs < now || isDisabled(identity, now)) {
    onActivity(deps.db.delete(apiSessions).where(eq(apiSessions.id, apiSession.id)).run());
    return undefined;
  }
  let lastActivityAt = apiSession.lastActivityAt;
  if (now - lastActivityAt >= ACTIVITY_WRITE_INTERVAL_MS) {
    lastActivityAt = now;
    onActivity(
      deps.db.update(apiSessions).set({ lastActivityAt: now, updatedAt: now }).where(eq(apiSessions.id, apiSession.id)).run(),
    );
  }
  const mfaOutstanding = isMfaOutstanding(apiSession, authPolicy);
  const fullyAuthenticated = !mfaOutstanding;
  return {
    apiSession: { ...apiSession, lastActivityAt },
    identity,
    authPolicy,
    mfaOutstanding,
    fullyAuthenticated,
    isAdmin: identity.isAdmin || identity.isDefaultAdmin,
    expiresAt: lastActivityAt + timeoutMs,
  };
}
