import type { AuthQueryDetail } from '../generated/management-types.js';
import type { ApiSessionRow, AuthPolicyRow } from '../db/schema/rows.js';

type PolicyQueries = Pick<AuthPolicyRow, 'requireTotp' | 'requireExtJwtSigner'> | null;
type SessionMfa = Pick<ApiSessionRow, 'isMfaRequired' | 'isMfaComplete'>;

/** The MFA query of reference auth-and-pki §1.7, always the same object. */
const MFA_QUERY = {
  typeId: 'MFA',
  provider: 'ziti',
  format: 'alphaNumeric',
  httpMethod: 'POST',
  httpUrl: './authenticate/mfa',
  minLength: 4,
  maxLength: 6,
  scopes: null,
} as const;

/** MFA is outstanding when the session or its policy asks for it and it was not completed in this session. */
export function isMfaOutstanding(apiSession: SessionMfa, policy: PolicyQueries): boolean {
  return (apiSession.isMfaRequired || (policy?.requireTotp ?? false)) && !apiSession.isMfaComplete;
}

/**
 * What a session still has to do before it is fully authenticated, computed on every request from the
 * session and the identity's auth policy, so that policy changes apply to live sessions (§1.7).
 *
 * A policy requiring a secondary external-JWT signer yields the EXT-JWT query. Bearer JWTs are not
 * verified before ext-jwt support arrives, so such a session stays partial: failing closed is the only
 * honest answer to a requirement that cannot be checked yet. Signers cannot be read yet either, so the
 * query has the shape the reference gives for an unreadable signer (typeId, provider, scopes: null).
 */
export function authQueries(apiSession: SessionMfa, policy: PolicyQueries): AuthQueryDetail[] {
  const queries: AuthQueryDetail[] = [];
  if (isMfaOutstanding(apiSession, policy)) queries.push({ ...MFA_QUERY });
  if (policy?.requireExtJwtSigner) queries.push({ typeId: 'EXT-JWT', provider: 'url', scopes: null });
  return queries;
}
