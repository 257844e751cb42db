import { links } from '../../crud/render.js';
import { iso } from '../../lib/time.js';
import type { AuthPolicyDetail } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import type { AuthPolicyRow } from './entity.js';

/** `authPolicyDetail` (reference auth-and-pki §2.6). */
export function renderAuthPolicy(p: AuthPolicyRow): AuthPolicyDetail {
  return {
    id: p.id,
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
    tags: readJson<Record<string, unknown>>(p.tags, {}),
    _links: links(`./auth-policies/${p.id}`),
    name: p.name,
    primary: {
      cert: { allowed: p.certAllowed, allowExpiredCerts: p.certAllowExpired },
      updb: {
        allowed: p.updbAllowed,
        minPasswordLength: p.updbMinPasswordLength,
        requireSpecialChar: p.updbRequireSpecialChar,
        requireNumberChar: p.updbRequireNumberChar,
        requireMixedCase: p.updbRequireMixedCase,
        maxAttempts: p.updbMaxAttempts,
        lockoutDurationMinutes: p.updbLockoutDurationMinutes,
      },
      // The controller renders null for "any signer"; the specification requires an array.
      extJwt: { allowed: p.extJwtAllowed, allowedSigners: readJson<string[] | null>(p.extJwtAllowedSigners, null) ?? [] },
    },
    secondary: { requireTotp: p.requireTotp, requireExtJwtSigner: p.requireExtJwtSigner ?? null },
  };
}
