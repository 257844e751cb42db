import { authQueries } from '../auth/auth-queries.js';
import { deleteSessionById, findSessionByTokenHash, touchSession, type RiddenValue, type SessionIdentity, type SessionPolicy, type SessionRider } from '../auth/session-repo.js';
import { isDisabled, isExpired } from '../auth/identity-state.js';
import { hashSessionToken } from '../auth/session-token.js';
import type { ApiSessionRow, ApiSessionWithToken, IdentityRow } from '../db/schema/rows.js';
import type { PendingRead, ReadAhead } from '../db/list-page.js';
import { readTogether } from '../db/client.js';
import type { Deps } from '../deps.js';
import { isUuid } from '../lib/ids.js';
import { currentDenyList, isRevoked } from '../oidc/revocations.js';
import type { AccessClaims } from '../oidc/tokens.js';
import { verifyAccessToken } from '../oidc/verify.js';

// Row types live with the schema (src/db/schema/rows.ts); re-exported for the modules that take them from here.
export type { ApiSessionRow, ApiSessionWithToken, AuthPolicyRow, IdentityRow } from '../db/schema/rows.js';
export type { SessionIdentity, SessionPolicy, SessionRider } from '../auth/session-repo.js';
export { ADMIN_CALLER } from '../auth/session-repo.js';

/** Whether a list page read along with the session check saves a round trip here (D1, remote libSQL; not the embedded file). */
export function readsAhead(deps: Deps): boolean {
  return readTogether(deps.db) !== undefined;
}

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
  /** When the session expires if nothing else happens (last activity + timeout; an access token's `exp`). */
  expiresAt: number;
  /**
   * Set when the caller presented an OIDC access token instead of `zt-session`: the session is the token's
   * (`apiSession.id` is its `z_asid`, nothing is stored), and services that behave differently for such
   * sessions (logout, `POST /sessions`) read its claims here.
   */
  oidc?: { claims: AccessClaims };
  /** What the operation's rider read with the session check (`SessionRider`); never set for an access token. */
  ridden?: RiddenValue;
  /** The list page read in the same round trip as the session check (`PendingRead`), if one was. */
  readAhead?: ReadAhead;
}

/** Activity is written at most once a minute per session: reads must not turn into writes. */
export const ACTIVITY_WRITE_INTERVAL_MS = 60_000;


/**
 * Loads the API session for a token. Expired sessions, and sessions of disabled identities, are deleted
 * and read as absent; so is a session whose identity or auth policy no longer exists.
 * `defer` receives the (rare) writes so the runtime can run them after the response.
 */
export async function loadSession(deps: Deps, token: string, defer: (write: Promise<unknown>) => void, rider?: SessionRider<unknown>, riderParams?: Record<string, unknown>, pending?: PendingRead): Promise<RequestSession | undefined> {
  // A value that is not a UUID cannot be a token: skip the read entirely.
  if (!isUuid(token)) return undefined;
  const tokenHash = await hashSessionToken(token);
  // A replica may not have the session yet (login answered by the primary a moment ago): ask the primary.
  // The page read ahead goes with the first read only; after a miss the operation reads it itself.
  const row = (await findSessionByTokenHash(deps.db, tokenHash, rider, riderParams, pending)) ?? (deps.primaryDb ? await findSessionByTokenHash(deps.primaryDb, tokenHash, rider, riderParams) : undefined);
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
  // Written out: spreading the row and adding the token takes a slow path in V8 (~2 µs per request).
  const current: ApiSessionWithToken = {
    id: apiSession.id,
    createdAt: apiSession.createdAt,
    updatedAt: lastActivityAt === apiSession.lastActivityAt ? apiSession.updatedAt : now,
    tags: apiSession.tags,
    isSystem: apiSession.isSystem,
    identityId: apiSession.identityId,
    authenticatorId: apiSession.authenticatorId,
    ipAddress: apiSession.ipAddress,
    configTypes: apiSession.configTypes,
    isMfaRequired: apiSession.isMfaRequired,
    isMfaComplete: apiSession.isMfaComplete,
    passedMfaAt: apiSession.passedMfaAt,
    isCertExtendable: apiSession.isCertExtendable,
    improperClientCertChain: apiSession.improperClientCertChain,
    lastActivityAt,
    token,
  };
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
    ridden: row.ridden,
    readAhead: row.readAhead,
  };
}

/**
 * The caller of a request that presents an OIDC access token (`Authorization: Bearer`, reference oidc.md
 * §7.1) and no `zt-session`: the first candidate that verifies (signature, times, type, audience, issuer;
 * src/oidc/verify.ts) and is not on the deny-list (src/oidc/revocations.ts). No store read: the session is
 * synthesised from the claims (§7.3) — always fully authenticated, admin as the token says.
 */
export async function loadBearerSession(deps: Deps, candidates: string[], clientAddress: () => string, defer: (write: Promise<unknown>) => void): Promise<RequestSession | undefined> {
  for (const token of candidates) {
    const claims = await verifyAccessToken(deps, token);
    if (!claims) continue;
    if (isRevoked(await currentDenyList(deps, defer), claims)) continue;
    return bearerSession(deps, token, claims, clientAddress());
  }
  return undefined;
}

function bearerSession(deps: Deps, token: string, c: AccessClaims, ipAddress: string): RequestSession {
  const now = deps.now();
  const mfa = Array.isArray(c.amr) && c.amr.includes('totp');
  const issuedAt = c.iat * 1000;
  const policyId = typeof c.z_apid === 'string' && c.z_apid ? c.z_apid : 'default';
  return {
    apiSession: {
      id: c.z_asid,
      createdAt: issuedAt,
      updatedAt: issuedAt,
      tags: '{}',
      isSystem: false,
      identityId: c.sub,
      authenticatorId: c.z_authid ?? '',
      ipAddress,
      configTypes: JSON.stringify(Array.isArray(c.z_ct) ? c.z_ct : []),
      isMfaRequired: mfa,
      isMfaComplete: mfa,
      passedMfaAt: mfa ? issuedAt : null,
      isCertExtendable: Boolean(c.z_ice),
      improperClientCertChain: Boolean(c.z_iccc),
      lastActivityAt: now,
      token,
    },
    identity: {
      id: c.sub,
      name: typeof c.name === 'string' ? c.name : '',
      typeId: 'Default',
      isAdmin: c.z_ia === true,
      isDefaultAdmin: false,
      authPolicyId: policyId,
      disabledAt: null,
      disabledUntil: null,
      // Not in the token: service-updates reads it for a bearer session (src/resources/current-api-session).
      servicesChangedAt: null,
    },
    // Every factor the policy asks for was passed in the login flow that issued the token.
    authPolicy: { id: policyId, name: '', requireTotp: false, requireExtJwtSigner: null },
    authQueries: [],
    fullyAuthenticated: true,
    isAdmin: c.z_ia === true,
    expiresAt: c.exp * 1000,
    oidc: { claims: c },
  };
}
