import { fieldError, type ApiError } from '../errors.js';
import type { AuthPolicyRow } from '../http/session.js';

/**
 * The password rules of an auth policy (`primary.updb`). The controller stores them without enforcing
 * them (reference auth-and-pki §2.2 quirk); here a password *chosen* by its owner must satisfy them, so
 * that an admin's policy means what it says. Logins are never checked against them: tightening a policy
 * must not lock out existing passwords. The error names the field and never echoes the value.
 */
export function passwordPolicyError(policy: Pick<AuthPolicyRow, 'updbMinPasswordLength' | 'updbRequireSpecialChar' | 'updbRequireNumberChar' | 'updbRequireMixedCase'>, password: string, field = 'password'): ApiError | undefined {
  const min = Math.max(5, policy.updbMinPasswordLength);
  if ([...password].length < min) return fieldError(field, `password must be at least ${min} characters long`);
  if (policy.updbRequireNumberChar && !/\p{Nd}/u.test(password)) return fieldError(field, 'password must contain a number');
  if (policy.updbRequireSpecialChar && !/[^\p{L}\p{Nd}\s]/u.test(password)) return fieldError(field, 'password must contain a special character');
  if (policy.updbRequireMixedCase && !(/\p{Lu}/u.test(password) && /\p{Ll}/u.test(password))) return fieldError(field, 'password must contain upper and lower case letters');
  return undefined;
}
