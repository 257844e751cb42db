import { passwordCheckFailed, reservePasswordCheck, secondFactorSubject } from '../../auth/lockout.js';
import { findAuthPolicy, mfaAttemptKey } from '../../auth/repo.js';
import { authGuards } from '../../auth/rate-limit.js';
import type { Config } from '../../config.js';
import type { SQL, Statement } from '../../db/client.js';
import type { ServiceContext } from '../../deps.js';
import { ApiError, notFound } from '../../errors.js';
import type { RequestSession } from '../../http/session.js';
import type { AuthPolicyRow as AuthPolicy } from '../../db/schema/index.js';
import { cuid, uuid } from '../../lib/ids.js';
import { matchRecoveryCode, matchTotp, newRecoveryCodes, newTotpSecret, provisioningUrl } from '../../mfa/totp.js';
import { qrCodePng } from '../../mfa/qr-png.js';
import { decrypt, deriveStorageKey, encrypt } from '../../pki/secrets.js';
import { renderMfa, renderRecoveryCodes } from './mapper.js';
import {
  clearMfaFailures,
  completeSession,
  consumeCode,
  deleteIdentityMfa,
  deleteUnverified,
  deleteWithCode,
  findMfa,
  identityExists,
  insertMfa,
  type Consumption,
  type MfaRow,
} from './repo.js';

/**
 * MFA (reference auth-and-pki §4): one TOTP enrolment per identity, with 20 single-use recovery codes.
 * Secret and codes are encrypted at rest and leave the controller only where §4.1 shows them. Every use
 * of a code is a conditional write (repo `consumeCode`), so a code is accepted once even under
 * concurrent requests; a TOTP code is not accepted twice (ADR 0007) and wrong codes count towards the
 * auth policy's lockout (ADR 0008).
 */

const keys = new WeakMap<Config, Promise<CryptoKey>>();
function storageKey(config: Config): Promise<CryptoKey> {
  let key = keys.get(config);
  if (!key) keys.set(config, (key = deriveStorageKey(config.controllerSecret)));
  return key;
}

interface Opened {
  row: MfaRow;
  secret: string;
  codes: string[];
}

async function open(config: Config, row: MfaRow): Promise<Opened> {
  const key = await storageKey(config);
  const text = (s: string) => decrypt(key, s).then((b) => new TextDecoder().decode(b));
  const [secret, codes] = await Promise.all([text(row.secret), text(row.recoveryCodes)]);
  return { row, secret, codes: JSON.parse(codes) as string[] };
}

async function seal(config: Config, value: string): Promise<string> {
  return encrypt(await storageKey(config), new TextEncoder().encode(value));
}

function invalidToken(): ApiError {
  return new ApiError('MFA_INVALID_TOKEN');
}

/** The caller's enrolment, or 404 (`verified`: only in that state). */
async function callerMfa(svc: ServiceContext, caller: RequestSession, verified?: boolean): Promise<Opened> {
  const row = await findMfa(svc.deps.db, caller.identity.id);
  if (!row || (verified !== undefined && row.isVerified !== verified)) throw notFound('mfa', caller.identity.id);
  return open(svc.deps.config, row);
}

/** `POST /current-identity/mfa`: a new unverified enrolment; 409 MFA_EXISTS when one exists (verified or not). */
export async function enrollMfa(svc: ServiceContext, caller: RequestSession): Promise<string> {
  const { deps } = svc;
  const now = deps.now();
  const row: MfaRow = {
    id: cuid(),
    createdAt: now,
    updatedAt: now,
    tags: '{}',
    isSystem: false,
    identityId: caller.identity.id,
    isVerified: false,
    secret: await seal(deps.config, newTotpSecret()),
    recoveryCodes: await seal(deps.config, JSON.stringify(newRecoveryCodes())),
    lastUsedStep: null,
    lastUseId: null,
  };
  // The unique index decides between concurrent enrolments.
  if (!(await insertMfa(deps.db, row))) throw new ApiError('MFA_EXISTS');
  return row.id;
}

function urlOf(svc: ServiceContext, caller: RequestSession, secret: string): string {
  return provisioningUrl(svc.deps.config.totpIssuer, caller.identity.name, secret);
}

/** `GET /current-identity/mfa`: the URL and codes only while unverified. */
export async function detailMfa(svc: ServiceContext, caller: RequestSession) {
  const m = await callerMfa(svc, caller);
  return renderMfa(m.row, m.row.isVerified ? undefined : { provisioningUrl: urlOf(svc, caller, m.secret), recoveryCodes: m.codes });
}

/** `GET /current-identity/mfa/qr-code`: the provisioning URL as a PNG, only while unverified. */
export async function mfaQrCode(svc: ServiceContext, caller: RequestSession): Promise<Uint8Array> {
  const m = await callerMfa(svc, caller, false);
  return qrCodePng(urlOf(svc, caller, m.secret));
}

/** How a submitted code matched: which write consumes it, and the recovery codes left. */
interface Match {
  consumption: Consumption;
  remaining?: string[];
}

async function matchCode(svc: ServiceContext, m: Opened, code: string, recoveryAllowed: boolean): Promise<Match | undefined> {
  // Recovery codes are checked first where they are allowed (§4.3).
  if (recoveryAllowed) {
    const i = matchRecoveryCode(m.codes, code);
    if (i >= 0) return { consumption: { kind: 'recovery', storedCodes: m.row.recoveryCodes }, remaining: m.codes.filter((_, j) => j !== i) };
  }
  const step = await matchTotp(m.secret, code, svc.deps.now());
  if (step === undefined) return undefined;
  // A code of a step at or before the last accepted one is a replay (ADR 0007).
  if (m.row.lastUsedStep !== null && step <= m.row.lastUsedStep) return undefined;
  return { consumption: { kind: 'totp', step } };
}

/**
 * Checks a second factor against a verified enrolment. Wrong codes are throttled per (address,
 * identity) like failed logins and count towards the policy's lockout (a missing or empty one does
 * not); the caller's write decides whether a right code is still unused.
 */
async function checkSecondFactor(
  svc: ServiceContext,
  caller: FactorOwner,
  m: Opened,
  code: string | undefined,
  recoveryAllowed: boolean,
  policyRead: Promise<AuthPolicy | undefined> = findAuthPolicy(svc.deps.db, caller.identity.authPolicyId),
): Promise<Match> {
  const { deps } = svc;
  // No code at all is a malformed request, not a guess: refused without counting.
  if (!code) throw invalidToken();
  const { throttle } = authGuards(deps, deps.config.authConcurrencyLimit);
  const address = svc.clientAddress();
  const throttleKey = mfaAttemptKey(caller.identity.id);
  throttle.check(address, throttleKey, deps.now());
  // Counted before the check, like a password (ADR 0008): parallel guesses cannot outrun the limit.
  const policy = await policyRead;
  if (!policy) throw new ApiError('UNAUTHORIZED');
  const subject = secondFactorSubject(caller.identity.id, policy);
  const reservation = await reservePasswordCheck(deps, subject, svc.requestId);
  // The limit is used up: the identity is now locked and this session ended.
  if (!reservation.checked) throw invalidToken();
  const match = await matchCode(svc, m, code, recoveryAllowed);
  if (!match) {
    throttle.failed(address, throttleKey, deps.now());
    await passwordCheckFailed(deps, subject, reservation, svc.requestId);
    throw invalidToken();
  }
  throttle.succeeded(address, throttleKey);
  return match;
}

/**
 * `POST /authenticate/mfa` (TOTP or recovery code): completes the caller's session. 409 MFA_NOT_ENROLLED
 * without a verified enrolment.
 */
export async function authenticateMfa(svc: ServiceContext, caller: RequestSession, code: string): Promise<void> {
  const { deps } = svc;
  await passSecondFactor(svc, caller, code, (won) => [completeSession(deps.db, caller.apiSession.id, deps.now(), won, false)]);
}

/** Whose second factor is checked: an identity and its auth policy (for the lockout count). */
export interface FactorOwner {
  identity: { id: string; authPolicyId: string };
}

/**
 * A login's second factor (TOTP or recovery code) against the identity's verified enrolment, with the
 * throttle, the lockout count and single use of codes (ADR 0007, 0008); `then(won)` builds the statements
 * that complete the login (a session, an OIDC authorization request), run in the batch that consumes the
 * code and only if that consumption won. 409 MFA_NOT_ENROLLED without a verified enrolment, 400
 * MFA_INVALID_TOKEN for a wrong or used code. `POST /authenticate/mfa` and `/oidc/login/totp` use it.
 */
export async function passSecondFactor(svc: ServiceContext, owner: FactorOwner, code: string, then: (won: SQL) => Statement[]): Promise<void> {
  const { deps } = svc;
  // The hot path: the enrolment and the policy (for the lockout count) are read together.
  const policyRead = findAuthPolicy(deps.db, owner.identity.authPolicyId);
  policyRead.catch(() => undefined); // awaited below, or moot when this fails first
  const row = await findMfa(deps.db, owner.identity.id);
  if (!row || !row.isVerified) throw new ApiError('MFA_NOT_ENROLLED');
  const m = await open(deps.config, row);
  const match = await checkSecondFactor(svc, owner, m, code, true, policyRead);
  await consume(svc, owner, m, match, true, then);
}

/** Writes a match (and the statements that depend on it); a lost race is a code already used. */
async function consume(
  svc: ServiceContext,
  caller: FactorOwner,
  m: Opened,
  match: Match,
  verified: boolean,
  then: Parameters<typeof consumeCode>[2],
  set: { isVerified?: boolean; recoveryCodes?: string } = {},
): Promise<void> {
  const { deps } = svc;
  const now = deps.now();
  if (match.remaining && set.recoveryCodes === undefined) set = { ...set, recoveryCodes: await seal(deps.config, JSON.stringify(match.remaining)) };
  const won = await consumeCode(deps.db, { mfaId: m.row.id, useId: uuid(), consumption: match.consumption, now, set, verified }, (w) => [
    ...then(w),
    clearMfaFailures(deps.db, mfaAttemptKey(caller.identity.id), w),
  ]);
  if (!won) throw invalidToken();
}

/**
 * `POST /current-identity/mfa/verify`: TOTP only, unverified enrolments only. Marks it verified and the
 * caller's session as required-and-complete, so a session that had to enroll becomes fully authenticated.
 * A wrong code here is not a guess at a second factor (the caller holds the secret being verified), so it
 * does not count towards the lockout.
 */
export async function verifyMfa(svc: ServiceContext, caller: RequestSession, code: string): Promise<void> {
  const { deps } = svc;
  const m = await callerMfa(svc, caller, false);
  const step = await matchTotp(m.secret, code, deps.now());
  if (step === undefined) throw invalidToken();
  await consume(svc, caller, m, { consumption: { kind: 'totp', step } }, false, (won) => [completeSession(deps.db, caller.apiSession.id, deps.now(), won, true)], {
    isVerified: true,
  });
}

/**
 * `DELETE /current-identity/mfa`: an unverified enrolment goes without a code; a verified one needs a
 * TOTP or recovery code (`mfa-validation-code`). Sessions are left alone.
 */
export async function deleteMfa(svc: ServiceContext, caller: RequestSession, code: string | undefined): Promise<void> {
  const { deps } = svc;
  const m = await callerMfa(svc, caller);
  if (!m.row.isVerified) {
    if (!(await deleteUnverified(deps.db, m.row.id))) throw notFound('mfa', caller.identity.id);
    return;
  }
  const match = await checkSecondFactor(svc, caller, m, code, true);
  if (!(await deleteWithCode(deps.db, m.row.id, match.consumption))) throw invalidToken();
}

/** `GET /current-identity/mfa/recovery-codes`: TOTP only, verified enrolments only. */
export async function detailRecoveryCodes(svc: ServiceContext, caller: RequestSession, code: string | undefined) {
  const m = await callerMfa(svc, caller, true);
  const match = await checkSecondFactor(svc, caller, m, code, false);
  await consume(svc, caller, m, match, true, () => []);
  return renderRecoveryCodes(m.row, m.codes);
}

/** `POST /current-identity/mfa/recovery-codes`: TOTP or recovery code; replaces all 20 codes. */
export async function regenerateRecoveryCodes(svc: ServiceContext, caller: RequestSession, code: string): Promise<void> {
  const { deps } = svc;
  const m = await callerMfa(svc, caller, true);
  const match = await checkSecondFactor(svc, caller, m, code, true);
  await consume(svc, caller, m, match, true, () => [], { recoveryCodes: await seal(deps.config, JSON.stringify(newRecoveryCodes())) });
}

/** `DELETE /identities/{id}/mfa` (admin): every enrolment of the identity, no code, sessions untouched. */
export async function removeIdentityMfa(svc: ServiceContext, identityId: string): Promise<void> {
  if (!(await identityExists(svc.deps.db, identityId))) throw notFound('identity', identityId);
  await deleteIdentityMfa(svc.deps.db, identityId);
}
