import { entityRef, links } from '../../crud/render.js';
import type { ApiSessionView, ApiSessionWithToken, AuthPolicyRow } from '../../db/schema/rows.js';
import type { ApiSessionDetail, AuthQueryDetail, CurrentApiSessionDetail } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import { iso } from '../../lib/time.js';

const API_SESSION_LINKS = { sessions: 'sessions' };

/** What only the caller's own session shows (reference auth-and-pki §1.4, §1.8). */
interface OwnSessionFields {
  authQueries: AuthQueryDetail[];
  expiresAt: string;
  expirationSeconds: number;
  isCertExtendRequested?: true;
  isCertKeyRollRequested?: true;
}

export type CertExtensionFlags = Pick<OwnSessionFields, 'isCertExtendRequested' | 'isCertKeyRollRequested'>;

/**
 * An API session as management lists and details show it (reference model-and-policies §10.7): no expiry
 * fields, `authQueries` always []. The token is a credential: it is shown only to the session's own
 * caller, who presented it (`token`); the store keeps only its hash, so no one else can be shown it.
 */
export function renderApiSession(s: ApiSessionView, identityName: string, token: string | undefined): ApiSessionDetail {
  return sessionLiteral(s, identityName, token, undefined);
}

/**
 * One object literal for both views: fields absent from a view are `undefined`, which JSON leaves out,
 * so the key order is the same either way. Spreading one object into another and adding fields takes a
 * slow path in V8 (docs/architecture.md, "Rendering").
 */
function sessionLiteral(s: ApiSessionView, identityName: string, token: string | undefined, own: OwnSessionFields | undefined): ApiSessionDetail & Partial<OwnSessionFields> {
  return {
    id: s.id,
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
    tags: readJson<Record<string, unknown>>(s.tags, {}),
    _links: links(`./api-sessions/${s.id}`, API_SESSION_LINKS),
    token: token ?? '',
    identityId: s.identityId,
    identity: entityRef('identities', s.identityId, identityName),
    authenticatorId: s.authenticatorId,
    ipAddress: s.ipAddress,
    configTypes: readJson<string[]>(s.configTypes, []),
    authQueries: own === undefined ? [] : own.authQueries,
    isMfaRequired: s.isMfaRequired,
    isMfaComplete: s.isMfaComplete,
    isCertExtendable: s.isCertExtendable,
    // Omitted when false, as the controller does.
    improperClientCertChain: s.improperClientCertChain ? true : undefined,
    lastActivityAt: iso(s.lastActivityAt),
    // Activity is persisted directly (at most once a minute), so there is no newer cached value.
    cachedLastActivityAt: iso(s.lastActivityAt),
    // Required by the specification; the record is not cached, so it is the record's own update time.
    cachedUpdatedAt: iso(s.updatedAt),
    expiresAt: own?.expiresAt,
    expirationSeconds: own?.expirationSeconds,
    // The extension request flags are omitted when false.
    isCertExtendRequested: own?.isCertExtendRequested,
    isCertKeyRollRequested: own?.isCertKeyRollRequested,
  };
}

/** The caller's own API session: adds its auth queries (as computed for this request), expiry and extension flags (reference auth-and-pki §1.4, §1.8). */
export function renderCurrentApiSession(
  s: ApiSessionWithToken,
  identityName: string,
  queries: AuthQueryDetail[],
  timeoutSeconds: number,
  flags: CertExtensionFlags = {},
): CurrentApiSessionDetail & { expiresAt: string } {
  return sessionLiteral(s, identityName, s.token, {
    authQueries: queries,
    expiresAt: iso(s.lastActivityAt + timeoutSeconds * 1000),
    expirationSeconds: timeoutSeconds,
    isCertExtendRequested: flags.isCertExtendRequested,
    isCertKeyRollRequested: flags.isCertKeyRollRequested,
  }) as CurrentApiSessionDetail & { expiresAt: string };
}

/**
 * The caller's own session when it is an OIDC access token (reference oidc.md §7.3): from the claims, no
 * store read. `expiresAt` and `expirationSeconds` are the token's (the controller shows the legacy
 * inactivity expiry beside the token's lifetime); the extension flags come from `z_cer`/`z_ckrr`.
 */
export function renderTokenSession(s: ApiSessionWithToken, identityName: string, claims: { exp: number; z_cer?: boolean; z_ckrr?: boolean }, now: number): CurrentApiSessionDetail & { expiresAt: string } {
  return sessionLiteral(s, identityName, s.token, {
    authQueries: [],
    expiresAt: iso(claims.exp * 1000),
    expirationSeconds: Math.max(0, Math.floor(claims.exp - now / 1000)),
    isCertExtendRequested: claims.z_cer ? true : undefined,
    isCertKeyRollRequested: claims.z_cer && claims.z_ckrr ? true : undefined,
  }) as CurrentApiSessionDetail & { expiresAt: string };
}
