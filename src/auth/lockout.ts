import type { BatchItem } from 'drizzle-orm/batch';
import { atomic, type Db } from '../db/client.js';
import type { Deps } from '../deps.js';
import type { AuthPolicyRow } from '../http/session.js';
import { disableIdentityStatements, mfaAttemptKey, recordFailure, resetFailures, resetIdentityFailures } from './repo.js';

/**
 * Password lockout (auth policy `maxAttempts` / `lockoutDurationMinutes`), the intended behaviour rather
 * than the controller's (reference auth-and-pki §2.4 quirk; docs/auth.md):
 * - consecutive *failed* password checks are counted per authenticator in the store (`auth_attempts`),
 *   so the count and the lock hold on every instance;
 * - the failure that takes the count above `maxAttempts` disables the identity for
 *   `lockoutDurationMinutes` (0 = until an admin enables it), deletes its API sessions and clears the count;
 * - a success clears the count, and so does an admin enable (`enableIdentityStatements`);
 * - `maxAttempts` 0 means unlimited, and then nothing is written at all.
 * Returns true when this failure locked the identity.
 */
export async function countPasswordFailure(
  deps: Deps,
  login: { authenticatorId: string; identityId: string; policy: LockoutPolicy },
  requestId: string,
): Promise<boolean> {
  return countFailure(deps, login.authenticatorId, login, requestId, 'identity locked out after failed password attempts');
}

/**
 * A wrong second factor (TOTP or recovery code) counts like a wrong password, under the same policy
 * settings but in its own per-identity counter (ADR 0005): a password login clears only its
 * authenticator's count, so it cannot reset the guesses at the second factor.
 */
export async function countSecondFactorFailure(deps: Deps, login: { identityId: string; policy: LockoutPolicy }, requestId: string): Promise<boolean> {
  return countFailure(deps, mfaAttemptKey(login.identityId), login, requestId, 'identity locked out after failed second-factor attempts');
}

type LockoutPolicy = Pick<AuthPolicyRow, 'updbMaxAttempts' | 'updbLockoutDurationMinutes'>;

async function countFailure(deps: Deps, key: string, login: { identityId: string; policy: LockoutPolicy }, requestId: string, message: string): Promise<boolean> {
  const max = login.policy.updbMaxAttempts;
  if (max <= 0) return false;
  const now = deps.now();
  const failures = await recordFailure(deps.db, key, now);
  if (failures <= max) return false;
  const minutes = login.policy.updbLockoutDurationMinutes;
  await atomic(deps.db, [...disableIdentityStatements(deps.db, login.identityId, now, minutes > 0 ? now + minutes * 60_000 : null), resetFailures(deps.db, key)]);
  deps.log.warn(message, { requestId, identityId: login.identityId, failures, lockoutMinutes: minutes });
  return true;
}

/** Statements that clear a success's failure count; none when there were no failures to clear. */
export function clearFailuresOnSuccess(db: Db, authenticatorId: string, failedCount: number | null | undefined): BatchItem<'sqlite'>[] {
  return failedCount ? [resetFailures(db, authenticatorId)] : [];
}

/**
 * What an admin enable must run in its batch besides clearing `disabledAt`/`disabledUntil`: forgetting
 * the identity's failed attempts, so that an enabled identity starts with a clean count.
 */
export function enableIdentityStatements(db: Db, identityId: string): BatchItem<'sqlite'>[] {
  return [resetIdentityFailures(db, identityId)];
}

/** Disabling (admin or lockout) ends the identity's API sessions in the same batch. */
export { disableIdentityStatements };
