import { ApiError, messageError } from '../../errors.js';
import { isDisabled } from '../identity-state.js';
import { clearFailuresOnSuccess, equaliseFailure, passwordCheckFailed, reservePasswordCheck, type LockoutSubject } from '../lockout.js';
import { DUMMY_HASH, verifyPassword } from '../password.js';
import { findPasswordLogin } from '../repo.js';
import type { AuthAttempt, AuthMethod, PrimaryAuthResult } from './types.js';

/**
 * Password (updb) authentication (reference auth-and-pki §2.3). An unknown username is verified against
 * a dummy hash, so it costs the same hashing time as a wrong password; every failure is the same 401.
 * The failed-attempt throttle answers 429 before any hashing is spent. Under a lockout policy the attempt
 * is counted in the store before the hash (src/auth/lockout.ts); every other failure writes once after
 * it, so all failures cost one write and one hash.
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
    const usable = found !== undefined && found.authPolicy !== null && !isDisabled(found.identity, deps.now()) && found.authPolicy.updbAllowed;
    const subject: LockoutSubject | undefined = usable ? { authenticatorId: found.authenticator.id, identityId: found.identity.id, policy: found.authPolicy! } : undefined;
    const reservation = subject ? await reservePasswordCheck(deps, subject, svc.requestId) : undefined;
    if (reservation && !reservation.checked) {
      // Over the limit: refused (and locked) without spending a hash on it.
      throttle.failed(address, username, deps.now());
      throw new ApiError('INVALID_AUTH');
    }
    const valid = await verifyPassword(password, found?.authenticator.passwordHash ?? DUMMY_HASH);
    if (!subject || !valid) {
      throttle.failed(address, username, deps.now());
      if (subject && reservation?.checked && reservation.attempt > 0) await passwordCheckFailed(deps, subject, reservation, svc.requestId);
      else await equaliseFailure(deps);
      throw new ApiError('INVALID_AUTH');
    }
    throttle.succeeded(address, username);
    return {
      identity: found!.identity,
      authPolicy: found!.authPolicy!,
      authenticatorId: subject.authenticatorId,
      isCertExtendable: false,
      improperClientCertChain: false,
      hasVerifiedMfa: Boolean(found!.hasVerifiedMfa),
      statements: clearFailuresOnSuccess(deps.db, subject.authenticatorId, reservation?.checked === true && reservation.attempt > 0),
    };
  },
};
