import { atomic } from '../../db/client.js';
import { ApiError, messageError } from '../../http/errors.js';
import type { OpContext } from '../../http/handler.js';
import { isDisabled } from '../../http/session.js';
import { DUMMY_HASH, verifyPassword } from '../password.js';
import { disableIdentityStatements, findPasswordLogin, recordFailure, resetFailures } from '../repo.js';
import type { PrimaryAuthResult } from './types.js';

interface PasswordBody {
  username?: string | null;
  password?: string | null;
}

/**
 * Password (updb) authentication. Every failure is the same 401 INVALID_AUTH, and an unknown user
 * costs the same hashing time as a wrong password, so responses reveal nothing.
 *
 * Lockout (auth policy `maxAttempts` / `lockoutDurationMinutes`): consecutive failures are counted
 * in the store (so every instance sees them); the failure that exceeds `maxAttempts` disables the
 * identity for `lockoutDurationMinutes` (0 = until an admin enables it) and ends its API sessions.
 * A success resets the count. `maxAttempts` 0 means unlimited.
 */
export async function passwordLogin(ctx: OpContext<PasswordBody | undefined>): Promise<PrimaryAuthResult> {
  const { deps } = ctx;
  const username = ctx.body?.username;
  const password = ctx.body?.password;
  if (!username || !password) throw messageError('COULD_NOT_VALIDATE', 'username and password fields are required');

  const found = await findPasswordLogin(deps.db, username);
  const valid = await verifyPassword(password, found?.authenticator.passwordHash ?? DUMMY_HASH);
  if (!found) throw new ApiError('INVALID_AUTH');
  const { authenticator, identity, authPolicy } = found;
  const now = deps.now();
  if (isDisabled(identity, now)) throw new ApiError('INVALID_AUTH');
  if (authPolicy && !authPolicy.updbAllowed) throw new ApiError('INVALID_AUTH');
  if (!valid) {
    const failures = await recordFailure(deps.db, authenticator.id, now);
    const max = authPolicy?.updbMaxAttempts ?? 0;
    if (max > 0 && failures > max) {
      const minutes = authPolicy?.updbLockoutDurationMinutes ?? 0;
      await atomic(deps.db, [...disableIdentityStatements(deps.db, identity.id, now, minutes > 0 ? now + minutes * 60_000 : null), resetFailures(deps.db, authenticator.id)]);
      deps.log.warn('identity locked out after failed password attempts', { requestId: ctx.requestId, identityId: identity.id, failures });
    }
    throw new ApiError('INVALID_AUTH');
  }
  return {
    identity,
    authPolicy,
    authenticatorId: authenticator.id,
    isCertExtendable: false,
    improperClientCertChain: false,
    // Only a prior failure leaves a row to reset; skip the write otherwise.
    onSuccess: (d) => (found.failedCount ? [resetFailures(d.db, authenticator.id)] : []),
  };
}
