import { entityRef, links } from '../../crud/render.js';
import { readJson } from '../../lib/json.js';
import type { AuthenticatorDetail } from '../../generated/management-types.js';
import { iso } from '../../lib/time.js';
import type { AuthenticatorRow } from './entity.js';

/**
 * `authenticatorDetail`; the password hash is never rendered. Admin views link the owning identity;
 * the identity's own view (`/current-identity/authenticators`) links only itself.
 */
export function renderAuthenticator(a: AuthenticatorRow, identityName: string, view: 'admin' | 'own' = 'admin'): AuthenticatorDetail {
  const id = a.id;
  const createdAt = iso(a.createdAt);
  const updatedAt = iso(a.updatedAt);
  const tags = readJson<Record<string, unknown>>(a.tags, {});
  const _links = view === 'admin' ? links(`./authenticators/${a.id}`, { identities: `./identities/${a.identityId}` }) : links(`./current-identity/authenticators/${a.id}`);
  const identity = entityRef('identities', a.identityId, identityName);
  // Each shape written out as one literal (no spread of a shared base: V8's slow path per added property).
  if (a.method === 'updb') return { id, createdAt, updatedAt, tags, _links, method: a.method, identityId: a.identityId, identity, username: a.username ?? '' };
  return {
    id,
    createdAt,
    updatedAt,
    tags,
    _links,
    method: a.method,
    identityId: a.identityId,
    identity,
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
