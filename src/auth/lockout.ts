import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client.js';
import type { Deps } from '../deps.js';
import type { AuthPolicyRow } from '../http/session.js';
import { disableIdentityStatements, lockIdentity, mfaAttemptKey, reserveAttempt, resetFailures, resetIdentityFailures, touchAttempts } from './repo.js';

type LockoutPolicy = Pick<AuthPolicyRow, 'updbMaxAttempts' | 'updbLockoutDurationMinutes'>;

export interface LockoutSubject {
  authenticatorId: string;
  identityId: string;
  policy: LockoutPolicy;
}

/**
 * Password lockout (auth policy `maxAttempts` / `lockoutDurationMinutes`), the intended behaviour rather
 * than the controller's (reference auth-and-pki §2.4 quirk; docs/auth.md), decided by the store so that
 * parallel guesses cannot outrun it:
 * - every password check under a lockout policy is counted *before* the hash is spent, by one
 *   conditional write (`reserveAttempt`): at most `maxAttempts + 1` checks are counted, and only while
 *   the identity is enabled; the count is of consecutive failures, because a success clears it;
 * - a failed check numbered above `maxAttempts`, or an attempt refused because the count is used up,
 *   locks the identity (disabled for `lockoutDurationMinutes`, 0 = until an admin enables it), ends its
 *   API sessions and clears the count, in one batch; a refused attempt is never hashed;
 * - a session is created only while the identity is enabled (the conditional insert in
 *   api-sessions/repo.ts), so a right password racing a lock or a disable gets no session;
 * - `maxAttempts` 0 means unlimited: nothing is counted.
 */
export type Reservation = { checked: true; attempt: number } | { checked: false };

/** Counts an attempt before its password is checked. `checked: false`: refuse it without hashing. */
export async function reservePasswordCheck(deps: Deps, subject: LockoutSubject, requestId: string): Promise<Reservation> {
  const max = subject.policy.updbMaxAttempts;
  if (max <= 0) return { checked: true, attempt: 0 };
  const now = deps.now();
  const attempt = await reserveAttempt(deps.db, subject.authenticatorId, subject.identityId, max, now);
  if (attempt !== undefined) return { checked: true, attempt };
  // The count is used up (or the identity was disabled meanwhile): this attempt is over the limit.
  await lockOut(deps, subject, now, requestId);
  return { checked: false };
}

/** After a failed check: the failure numbered above `maxAttempts` locks. */
export async function passwordCheckFailed(deps: Deps, subject: LockoutSubject, reservation: Reservation, requestId: string): Promise<void> {
  if (reservation.checked && reservation.attempt > subject.policy.updbMaxAttempts && subject.policy.updbMaxAttempts > 0) {
    await lockOut(deps, subject, deps.now(), requestId);
  }
}

/**
 * A failed login that reserved nothing (unknown user, no lockout policy, unusable identity) writes once
 * too, as `reserveAttempt` does, so that failures cost the same whatever the reason.
 */
export async function equaliseFailure(deps: Deps): Promise<void> {
  await touchAttempts(deps.db, deps.now());
}

async function lockOut(deps: Deps, subject: LockoutSubject, now: number, requestId: string): Promise<void> {
  const minutes = subject.policy.updbLockoutDurationMinutes;
  const locked = await lockIdentity(deps.db, subject.identityId, subject.authenticatorId, now, minutes > 0 ? now + minutes * 60_000 : null);
  const what = subject.authenticatorId === mfaAttemptKey(subject.identityId) ? 'second-factor' : 'password';
  if (locked) deps.log.warn(`identity locked out after failed ${what} attempts`, { requestId, identityId: subject.identityId, lockoutMinutes: minutes });
}

/**
 * A wrong password outside a login (the current password of a self-service change): counted after the
 * check, since the caller already holds a session; the same limit and lock apply.
 */
export async function countPasswordFailure(deps: Deps, subject: LockoutSubject, requestId: string): Promise<void> {
  const reservation = await reservePasswordCheck(deps, subject, requestId);
  await passwordCheckFailed(deps, subject, reservation, requestId);
}

/**
 * A second factor (TOTP or recovery code) is counted like a password (ADR 0008): reserved before the code
 * is checked, under the same policy limit, in its own per-identity count (`mfa:<identityId>`), so a
 * password login, which clears only its authenticator's count, does not reset the guesses at the second
 * factor. A right code clears it (the MFA service does, in the batch that consumes the code).
 */
export function secondFactorSubject(identityId: string, policy: LockoutPolicy): LockoutSubject {
  return { authenticatorId: mfaAttemptKey(identityId), identityId, policy };
}

/** Statements that clear a success's count, in the session batch; none without a lockout policy. */
export function clearFailuresOnSuccess(db: Db, authenticatorId: string, counted: boolean): BatchItem<'sqlite'>[] {
  return counted ? [resetFailures(db, authenticatorId)] : [];
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
