import { authQueries } from '../../auth/auth-queries.js';
import { entityRef, links } from '../../http/envelope.js';
import type { ApiSessionRow, AuthPolicyRow } from '../../http/session.js';
import { readJson } from '../../lib/json.js';
import { iso } from '../../lib/time.js';

export function apiSessionLinks(id: string) {
  return links(`./api-sessions/${id}`, { sessions: 'sessions' });
}

/** The API session as management lists and details show it (no expiry fields, no auth queries). */
export function renderApiSession(s: ApiSessionRow, identityName: string) {
  return {
    id: s.id,
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
    tags: readJson(s.tags, {}),
    _links: apiSessionLinks(s.id),
    token: s.token,
    identityId: s.identityId,
    identity: entityRef('identities', s.identityId, identityName),
    authenticatorId: s.authenticatorId,
    ipAddress: s.ipAddress,
    configTypes: readJson<string[]>(s.configTypes, []),
    authQueries: [] as unknown[],
    isMfaRequired: s.isMfaRequired,
    isMfaComplete: s.isMfaComplete,
    isCertExtendable: s.isCertExtendable,
    ...(s.improperClientCertChain ? { improperClientCertChain: true } : {}),
    lastActivityAt: iso(s.lastActivityAt),
    cachedLastActivityAt: iso(s.lastActivityAt),
  };
}

/** The caller's own API session: adds auth queries and expiry (reference auth-and-pki §1.4). */
export function renderCurrentApiSession(s: ApiSessionRow, identityName: string, policy: AuthPolicyRow | null, timeoutSeconds: number) {
  return {
    ...renderApiSession(s, identityName),
    authQueries: authQueries(s, policy),
    expiresAt: iso(s.lastActivityAt + timeoutSeconds * 1000),
    expirationSeconds: timeoutSeconds,
  };
}
