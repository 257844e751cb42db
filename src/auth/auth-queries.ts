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
 * session and the identity's auth policy, so that policy changes apply to live sessions (§1.7): MFA first,
 * then the secondary external JWT.
 *
 * `extJwt` is the outcome of the secondary check for this request (`ext-jwt-secondary.ts`): the EXT-JWT
 * query when it is outstanding, null when the request carried a valid token. Where the check has not run,
 * a policy requiring a signer yields a bare EXT-JWT query: an unchecked requirement is not met.
 */
export function authQueries(apiSession: SessionMfa, policy: PolicyQueries, extJwt?: AuthQueryDetail | null): AuthQueryDetail[] {
  const queries: AuthQueryDetail[] = [];
  if (isMfaOutstanding(apiSession, policy)) queries.push({ ...MFA_QUERY });
  if (policy?.requireExtJwtSigner) {
    if (extJwt === undefined) queries.push({ typeId: 'EXT-JWT', provider: 'url', scopes: null });
    else if (extJwt !== null) queries.push(extJwt);
  }
  return queries;
}
