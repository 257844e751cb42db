import { ApiError } from '../../errors.js';
import { readJson } from '../../lib/json.js';
import { findClaimedIdentity } from '../ext-jwt/repo.js';
import { verifyExtJwt } from '../ext-jwt/verify.js';
import type { AuthAttempt, AuthMethod, PrimaryAuthResult } from './types.js';

/**
 * External JWT authentication (reference auth-and-pki §8.2): a bearer token from an enabled signer names
 * an identity, by id or by externalId, whose auth policy admits ext-jwt logins from that signer. Every
 * failure is the same 401 INVALID_AUTH; the reason is logged, the token never is.
 */
export const extJwtMethod: AuthMethod = {
  name: 'ext-jwt',
  async authenticate({ svc }: AuthAttempt): Promise<PrimaryAuthResult> {
    const { deps, requestId } = svc;
    const refuse = (reason: string, signerId?: string): never => {
      deps.log.info('ext-jwt authentication failed', { requestId, reason, ...(signerId ? { signerId } : {}) });
      throw new ApiError('INVALID_AUTH');
    };
    const candidates = svc.bearerTokens();
    if (candidates.length === 0) return refuse('no bearer token');
    const verified = await verifyExtJwt(deps, candidates, { requestId });
    if (!verified) return refuse('no token verified');
    const { signer, claim } = verified;
    const found = await findClaimedIdentity(deps.db, claim, signer.useExternalId);
    if (!found) return refuse('no identity for the claim', signer.id);
    const { identity, authPolicy } = found;
    // Disabled while disabledAt is set and disabledUntil is absent or ahead (§1.9).
    const now = deps.now();
    if (identity.disabledAt !== null && (identity.disabledUntil === null || identity.disabledUntil > now)) return refuse('identity disabled', signer.id);
    if (!authPolicy) return refuse('auth policy missing', signer.id);
    if (!authPolicy.extJwtAllowed) return refuse('ext-jwt not allowed by the auth policy', signer.id);
    const allowed = readJson<string[] | null>(authPolicy.extJwtAllowedSigners, null) ?? [];
    if (allowed.length > 0 && !allowed.includes(signer.id)) return refuse('signer not allowed by the auth policy', signer.id);
    return {
      identity,
      authPolicy,
      authenticatorId: `extJwtId:${signer.id}`,
      isCertExtendable: false,
      improperClientCertChain: false,
      hasVerifiedMfa: Boolean(found.hasVerifiedMfa),
      statements: [],
    };
  },
};
