import type { Deps } from '../deps.js';
import type { AuthQueryDetail } from '../generated/management-types.js';
import type { RequestSession } from '../http/session.js';
import { readJson } from '../lib/json.js';
import { authQueries } from './auth-queries.js';
import { findClaimedIdentity, findSigner, type SignerRow } from './ext-jwt/repo.js';
import { verifyExtJwt } from './ext-jwt/verify.js';

/** The EXT-JWT auth query (§1.7): empty fields omitted, scopes always present (null when none). */
function extJwtQuery(signerId: string, signer: SignerRow | undefined): AuthQueryDetail {
  if (!signer) return { typeId: 'EXT-JWT', provider: 'url', scopes: null };
  const scopes = readJson<string[] | null>(signer.scopes, null);
  return {
    typeId: 'EXT-JWT',
    provider: 'url',
    id: signerId,
    ...(signer.externalAuthUrl ? { httpUrl: signer.externalAuthUrl } : {}),
    ...(signer.clientId ? { clientId: signer.clientId } : {}),
    scopes: scopes && scopes.length > 0 ? scopes : null,
  };
}

/**
 * The secondary external-JWT check (reference auth-and-pki §8.3) for one request: null when the policy
 * requires no signer, or when one of the request's bearer tokens verifies with exactly the required signer
 * and names this very identity; otherwise the EXT-JWT query. The primary `allowed`/`allowedSigners`
 * settings play no part. Nothing is remembered: the next request must carry a valid token again.
 */
export async function secondaryExtJwtQuery(
  deps: Deps,
  policy: { requireExtJwtSigner: string | null },
  identityId: string,
  bearerTokens: string[],
  requestId: string,
): Promise<AuthQueryDetail | null> {
  const required = policy.requireExtJwtSigner;
  if (!required) return null;
  const verified = bearerTokens.length > 0 ? await verifyExtJwt(deps, bearerTokens, { requestId, requiredSignerId: required }) : undefined;
  if (verified) {
    const { signer, claim } = verified;
    const sameIdentity = signer.useExternalId ? (await findClaimedIdentity(deps.db, claim, true))?.identity.id === identityId : claim === identityId;
    if (sameIdentity) return null;
    deps.log.info('external JWT refused', { requestId, reason: 'token names another identity', signerId: signer.id });
    return extJwtQuery(required, signer);
  }
  return extJwtQuery(required, await findSigner(deps.db, required));
}

/**
 * A loaded session with the secondary check applied to this request: its auth queries, and with them
 * full authentication and admin rights, recomputed. Sessions whose policy requires no signer pass as they are.
 */
export async function withSecondaryExtJwt(deps: Deps, session: RequestSession, bearerTokens: string[], requestId: string): Promise<RequestSession> {
  if (!session.authPolicy.requireExtJwtSigner) return session;
  const extJwt = await secondaryExtJwtQuery(deps, session.authPolicy, session.identity.id, bearerTokens, requestId);
  const queries = authQueries(session.apiSession, session.authPolicy, extJwt);
  const fullyAuthenticated = queries.length === 0;
  return { ...session, authQueries: queries, fullyAuthenticated, isAdmin: fullyAuthenticated && (session.identity.isAdmin || session.identity.isDefaultAdmin) };
}
