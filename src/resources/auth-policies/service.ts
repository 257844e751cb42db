import { triggerRaised } from '../../crud/repo.js';
import { referencedError, resourceService } from '../../crud/service.js';
import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { authPolicyEntity, DEFAULT_AUTH_POLICY_ID } from './entity.js';
import { renderAuthPolicy } from './mapper.js';
import { identitiesUsingPolicy, missingExtJwtSigners, SIGNER_MISSING } from './repo.js';

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
const crud = resourceService(authPolicyEntity, {
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

/**
 * A signer deleted between the check and the write is caught by the store's trigger: checked again, it is
 * the same 404 naming the field.
 */
async function whileSignersExist<T>(deps: Deps, body: unknown, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (!triggerRaised(e, SIGNER_MISSING)) throw e;
    const b = body as { primary?: { extJwt?: { allowedSigners?: string[] | null } }; secondary?: { requireExtJwtSigner?: string | null } } | undefined;
    await checkSigners(deps, { extJwtAllowedSigners: b?.primary?.extJwt?.allowedSigners ?? [], requireExtJwtSigner: b?.secondary?.requireExtJwtSigner ?? null });
    throw new ApiError('NOT_FOUND', { code: 'UNHANDLED', message: 'externalJwtSigner not found' });
  }
}

export const authPolicyService = {
  ...crud,
  create: (deps: Deps, body: Parameters<typeof crud.create>[1]) => whileSignersExist(deps, body, () => crud.create(deps, body)),
  update: (deps: Deps, id: string, body: Parameters<typeof crud.update>[2], mode: 'update' | 'patch') => whileSignersExist(deps, body, () => crud.update(deps, id, body, mode)),
};
