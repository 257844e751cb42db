import { entityRef, links } from '../../http/envelope.js';
import { readJson } from '../../lib/json.js';
import { iso } from '../../lib/time.js';
import type { AuthenticatorRow } from './repo.js';

/** `authenticatorDetail` (links: self and the owning identity). The password hash is never rendered. */
export function renderAuthenticator(a: AuthenticatorRow, identityName: string, selfLinks = links(`./authenticators/${a.id}`, { identities: `./identities/${a.identityId}` })) {
  const base = {
    id: a.id,
    createdAt: iso(a.createdAt),
    updatedAt: iso(a.updatedAt),
    tags: readJson(a.tags, {}),
    _links: selfLinks,
    method: a.method,
    identityId: a.identityId,
    identity: entityRef('identities', a.identityId, identityName),
  };
  if (a.method === 'updb') return { ...base, username: a.username ?? '' };
  return {
    ...base,
    certPem: a.certPem ?? '',
    fingerprint: a.certFingerprint ?? '',
    isIssuedByNetwork: a.isIssuedByNetwork,
    lastAuthResolvedToRoot: a.lastAuthResolvedToRoot,
    lastExtendRolledKeys: a.lastExtendRolledKeys,
    // Extension flags are honoured only for network-issued certificates (reference auth-and-pki §1.8).
    isExtendRequested: a.isIssuedByNetwork && a.isExtendRequested,
    isKeyRollRequested: a.isIssuedByNetwork && a.isExtendRequested && a.isKeyRollRequested,
    extendRequestedAt: iso(a.extendRequestedAt),
  };
}
