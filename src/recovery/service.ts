/**
 * Admin recovery: give an admin a new password from the machine that holds the store, without the
 * API (`npm run admin -- reset-password`, scripts/admin.ts). Safe while a controller serves the same
 * store: the reset is one atomic batch, and a controller reads password hashes and API sessions from
 * the store on every login and request, so it caches nothing the reset changes.
 */
import { hashPassword } from '../auth/password.js';
import { generatePassword } from '../bootstrap.js';
import { passwordPolicyError } from '../auth/password-policy.js';
import { atomic, type Db } from '../db/client.js';
import { shortId } from '../lib/ids.js';
import { findAdminByUsername, findDefaultAdmin, resetStatements, usernameTaken } from './repo.js';

/** A refusal the operator can act on; the CLI prints its message. */
export class RecoveryError extends Error {}

export interface ResetResult {
  username: string;
  identityId: string;
  identityName: string;
  /** True when the default admin had no password authenticator and one was created. */
  createdAuthenticator: boolean;
}

export { generatePassword };

const DEFAULT_POLICY = { updbMinPasswordLength: 5, updbRequireSpecialChar: false, updbRequireNumberChar: false, updbRequireMixedCase: false };

/**
 * Without `username`, the default admin (given a password authenticator named `fallbackUsername` if it
 * has none left); with one, the admin that logs in with it. The new password must satisfy the admin's
 * auth policy. Also lifts a lockout and ends the admin's API sessions.
 */
export async function resetAdminPassword(db: Db, input: { username?: string; fallbackUsername: string; password: string; now: number }): Promise<ResetResult> {
  const admin = input.username ? await findAdminByUsername(db, input.username) : await findDefaultAdmin(db);
  if (!admin) {
    throw new RecoveryError(input.username ? `no admin logs in with the username "${input.username}"` : 'the store has no default admin: start the controller once to create it');
  }
  const policyError = passwordPolicyError(admin.policy ?? DEFAULT_POLICY, input.password);
  if (policyError) throw new RecoveryError(`the new password is refused: ${policyError.causeDetail?.reason ?? policyError.message}`);

  let username = admin.username;
  let authenticatorId = admin.authenticatorId;
  let create: { username: string } | undefined;
  if (!authenticatorId || !username) {
    username = input.fallbackUsername;
    if (await usernameTaken(db, username)) throw new RecoveryError(`the default admin has no password login and the username "${username}" belongs to someone else; pass --username with an admin's username`);
    authenticatorId = shortId();
    create = { username };
  }
  const passwordHash = await hashPassword(input.password);
  await atomic(db, resetStatements(db, { identityId: admin.identityId, authenticatorId, passwordHash, now: input.now, create }));
  return { username, identityId: admin.identityId, identityName: admin.identityName, createdAuthenticator: !!create };
}
