import { links } from '../../crud/render.js';
import { readJson } from '../../lib/json.js';
import { iso } from '../../lib/time.js';
import type { CaRow } from './entity.js';

/** `caDetail` (reference auth-and-pki §7): the verification token stays visible after verification. */
export function renderCa(row: CaRow) {
  return {
    id: row.id,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    tags: readJson(row.tags, {}),
    _links: links(`./cas/${row.id}`, { jwt: 'jwt', verify: 'verify' }),
    name: row.name,
    fingerprint: row.fingerprint,
    certPem: row.certPem,
    isVerified: row.isVerified,
    verificationToken: row.verificationToken,
    isAutoCaEnrollmentEnabled: row.isAutoCaEnrollmentEnabled,
    isOttCaEnrollmentEnabled: row.isOttCaEnrollmentEnabled,
    isAuthEnabled: row.isAuthEnabled,
    identityRoles: readJson<string[]>(row.identityRoles, []),
    identityNameFormat: row.identityNameFormat,
    externalIdClaim: readJson(row.externalIdClaim, null),
  };
}
