import { entityRef, links } from '../../http/envelope.js';
import { readJson } from '../../lib/json.js';
import { iso } from '../../lib/time.js';
import type { AuthenticatorRow } from './repo.js';

/**
 * An authenticator of the caller (`authenticatorDetail`), linked under `./current-identity/authenticators`
 * as the controller links it there. The password hash is never rendered.
 */
export function renderOwnAuthenticator(a: AuthenticatorRow, identityName: string) {
  const base = {
    id: a.id,
    createdAt: iso(a.createdAt),
    updatedAt: iso(a.updatedAt),
    tags: readJson(a.tags, {}),
    _links: links(`./current-identity/authenticators/${a.id}`),
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
    // Extension flags are honoured only for network-issued certificates (reference auth-and-pki §1.8).
    isExtendRequested: a.isIssuedByNetwork && a.isExtendRequested,
    isKeyRollRequested: a.isIssuedByNetwork && a.isExtendRequested && a.isKeyRollRequested,
    extendRequestedAt: iso(a.extendRequestedAt),
  };
}
