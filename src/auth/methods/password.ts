import { ApiError, messageError } from '../../errors.js';
import { isDisabled } from '../../http/session.js';
import { clearFailuresOnSuccess, countPasswordFailure } from '../lockout.js';
import { DUMMY_HASH, verifyPassword } from '../password.js';
import { findPasswordLogin } from '../repo.js';
import type { AuthAttempt, AuthMethod, PrimaryAuthResult } from './types.js';

/**
 * Password (updb) authentication (reference auth-and-pki §2.3). An unknown username is verified against
 * a dummy hash, so it costs the same hashing time as a wrong password; every failure is the same 401.
 * The failed-attempt throttle answers 429 before any hashing is spent; the lockout counts in the store.
 */
export const passwordMethod: AuthMethod = {
  name: 'password',
  async authenticate({ svc, body, address, throttle }: AuthAttempt): Promise<PrimaryAuthResult> {
    const { deps } = svc;
    const username = body?.username;
    const password = body?.password;
    if (!username || !password) throw messageError('COULD_NOT_VALIDATE', 'username and password fields are required');
    throttle.check(address, username, deps.now());

    const found = await findPasswordLogin(deps.db, username);
    const valid = await verifyPassword(password, found?.authenticator.passwordHash ?? DUMMY_HASH);
    const now = deps.now();
    const usable = found !== undefined && found.authPolicy !== null && !isDisabled(found.identity, now) && found.authPolicy.updbAllowed;
    if (!usable || !valid) {
      throttle.failed(address, username, now);
      // Only a wrong password for a usable login counts towards the lockout.
      if (usable && !valid) {
        await countPasswordFailure(deps, { authenticatorId: found.authenticator.id, identityId: found.identity.id, policy: found.authPolicy! }, svc.requestId);
      }
      throw new ApiError('INVALID_AUTH');
    }
    throttle.succeeded(address, username);
    return {
      identity: found.identity,
      authPolicy: found.authPolicy!,
      authenticatorId: found.authenticator.id,
      isCertExtendable: false,
      improperClientCertChain: false,
      hasVerifiedMfa: Boolean(found.hasVerifiedMfa),
      statements: clearFailuresOnSuccess(deps.db, found.authenticator.id, found.failedCount),
    };
  },
};
