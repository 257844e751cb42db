import { links } from '../../crud/render.js';
import type { ClientExternalJwtSignerDetail } from '../../generated/client-types.js';
import type { ExternalJwtSignerDetail } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import { iso } from '../../lib/time.js';
import type { ExternalJwtSignerRow } from './entity.js';

/** Go's zero time: what the controller renders for the certificate dates of a JWKS signer. */
const ZERO_TIME = '0001-01-01T00:00:00.000Z';

/** The scopes, or null when there are none: the controller keeps an empty list as none. */
function scopesOf(s: ExternalJwtSignerRow): string[] | null {
  const scopes = readJson<string[] | null>(s.scopes, null);
  return scopes && scopes.length > 0 ? scopes : null;
}

/**
 * Management `externalJwtSignerDetail`: every field (reference auth-and-pki §8.1). Optional fields that are
 * unset render null, as the controller renders them (`external_jwt_signer_test.go` checks a signer created
 * without an `externalAuthUrl` for null); the commonName of a JWKS signer is "".
 */
export function renderExternalJwtSigner(s: ExternalJwtSignerRow): ExternalJwtSignerDetail {
  return {
    id: s.id,
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
    tags: readJson<Record<string, unknown>>(s.tags, {}),
    _links: links(`./external-jwt-signers/${s.id}`),
    name: s.name,
    enabled: s.enabled,
    issuer: s.issuer,
    audience: s.audience,
    certPem: s.certPem,
    jwksEndpoint: s.jwksEndpoint,
    kid: s.kid,
    claimsProperty: s.claimsProperty,
    useExternalId: s.useExternalId,
    externalAuthUrl: s.externalAuthUrl,
    clientId: s.clientId,
    scopes: scopesOf(s),
    targetToken: s.targetToken === 'ID' ? 'ID' : 'ACCESS',
    fingerprint: s.fingerprint,
    commonName: s.commonName ?? '',
    notBefore: s.notBefore === null ? ZERO_TIME : iso(s.notBefore),
    notAfter: s.notAfter === null ? ZERO_TIME : iso(s.notAfter),
  };
}

/**
 * The client API's view (§8.4): only what a browser needs to send a person to the provider. Issuer, kid,
 * key material, claimsProperty and useExternalId stay private.
 */
export function renderClientExternalJwtSigner(s: ExternalJwtSignerRow): ClientExternalJwtSignerDetail {
  return {
    id: s.id,
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
    tags: readJson<Record<string, unknown>>(s.tags, {}),
    _links: links(`./external-jwt-signers/${s.id}`),
    name: s.name,
    // Null when unset, as the controller renders it: SDKs offer a signer for browser login only when it has one.
    externalAuthUrl: s.externalAuthUrl,
    clientId: s.clientId,
    audience: s.audience,
    scopes: scopesOf(s),
    targetToken: s.targetToken === 'ID' ? 'ID' : 'ACCESS',
  };
}
