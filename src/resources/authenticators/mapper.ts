import { baseEntity, entityRef } from '../../crud/render.js';
import type { AuthenticatorDetail } from '../../generated/management-types.js';
import { iso } from '../../lib/time.js';
import type { AuthenticatorRow } from './entity.js';

/**
 * `authenticatorDetail`; the password hash is never rendered. Admin views link the owning identity;
 * the identity's own view (`/current-identity/authenticators`) links only itself.
 */
export function renderAuthenticator(a: AuthenticatorRow, identityName: string, view: 'admin' | 'own' = 'admin'): AuthenticatorDetail {
  const base = {
    ...(view === 'admin' ? baseEntity(a, `./authenticators/${a.id}`, { identities: `./identities/${a.identityId}` }) : baseEntity(a, `./current-identity/authenticators/${a.id}`)),
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
