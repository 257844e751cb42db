import type { ApiSessionRow, AuthPolicyRow } from '../http/session.js';
import { isMfaOutstanding } from '../http/session.js';

/** What a partially authenticated session still has to do (reference auth-and-pki §1.7). */
export function authQueries(apiSession: ApiSessionRow, policy: AuthPolicyRow | null) {
  const queries: Record<string, unknown>[] = [];
  if (isMfaOutstanding(apiSession, policy)) {
    queries.push({
      typeId: 'MFA',
      provider: 'ziti',
      format: 'alphaNumeric',
      httpMethod: 'POST',
      httpUrl: './authenticate/mfa',
      minLength: 4,
      maxLength: 6,
      scopes: null,
    });
  }
  return queries;
}
