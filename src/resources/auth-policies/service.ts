import { referencedError, resourceService } from '../../crud/service.js';
import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { authPolicyEntity, DEFAULT_AUTH_POLICY_ID } from './entity.js';
import { renderAuthPolicy } from './mapper.js';
import { identitiesUsingPolicy, missingExtJwtSigners } from './repo.js';

/** Every referenced external JWT signer must exist: 404 NOT_FOUND with the field, as the controller answers. */
async function checkSigners(deps: Deps, values: { extJwtAllowedSigners?: unknown; requireExtJwtSigner?: string | null }): Promise<void> {
  const allowed = Array.isArray(values.extJwtAllowedSigners) ? (values.extJwtAllowedSigners as string[]) : [];
  const required = typeof values.requireExtJwtSigner === 'string' ? [values.requireExtJwtSigner] : [];
  if (allowed.length === 0 && required.length === 0) return;
  const missing = new Set(await missingExtJwtSigners(deps.db, [...new Set([...allowed, ...required])]));
  const i = allowed.findIndex((id) => missing.has(id));
  if (i >= 0) throw new ApiError('NOT_FOUND', { field: `primary.extJwt.allowedSigners[${i}]`, reason: 'not found', value: allowed[i] });
  if (required.length > 0 && missing.has(required[0])) throw new ApiError('NOT_FOUND', { field: 'secondary.requireExtJwtSigner', reason: 'not found', value: required[0] });
}

/**
 * Auth policies (reference auth-and-pki §2.6). The built-in `default` policy may be updated and patched
 * but never deleted; a policy still assigned to identities cannot be deleted (409 with the field cause).
 */
export const authPolicyService = resourceService(authPolicyEntity, {
  render: (r) => renderAuthPolicy(r.row),
  create: { check: (deps, values) => checkSigners(deps, values) },
  update: { check: (deps, values) => checkSigners(deps, values) },
  remove: {
    async check(deps, existing) {
      const users = await identitiesUsingPolicy(deps.db, existing.id);
      if (users.length > 0) throw referencedError('authPolicies', 'identities', users, 'authPolicyId');
      // Identities fall back to the default policy, so it must always exist; 409 like a referenced policy.
      if (existing.id === DEFAULT_AUTH_POLICY_ID) throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: 'cannot delete the default auth policy' }, 409);
    },
  },
});
