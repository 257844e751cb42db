import type { ClientCertificate, Deps } from '../deps.js';
import { ApiError } from '../http/errors.js';
import type { EnrollmentRow } from './repo.js';
import type { EnrollOutcome } from './enroll.js';

/** OTTCA enrollment (§5.5): not implemented yet, answers 501. */
export async function enrollOttCa(_deps: Deps, _enrollment: EnrollmentRow, _cert: ClientCertificate | undefined): Promise<EnrollOutcome> {
  throw new ApiError('NOT_IMPLEMENTED', { code: 'NOT_IMPLEMENTED', message: 'ottca enrollment is not implemented' });
}

/** CA auto-enrollment (§5.7): not implemented yet, answers 501. */
export async function enrollCa(_deps: Deps, _cert: ClientCertificate | undefined, _name: string | undefined): Promise<EnrollOutcome> {
  throw new ApiError('NOT_IMPLEMENTED', { code: 'NOT_IMPLEMENTED', message: 'ca auto-enrollment is not implemented' });
}

/**
 * Pool 3 of certificate login (§3.2): a leaf chaining to a verified, auth-enabled third-party CA. Returns
 * the identity found by the CA's externalId claim, or `{}` for a fingerprint lookup, or undefined when no
 * such CA verifies the leaf. Until CAs can be registered (issue step 4) no CA verifies anything.
 */
export async function thirdPartyLogin(
  _deps: Deps,
  _leaf: import('../pki/x509.js').x509.X509Certificate,
  _intermediates: import('../pki/x509.js').x509.X509Certificate[],
  _now: Date,
): Promise<{ identity?: import('../http/session.js').IdentityRow; authPolicy: import('../http/session.js').AuthPolicyRow | null } | undefined> {
  return undefined;
}
