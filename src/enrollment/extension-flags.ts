import type { Deps } from '../deps.js';
import type { ApiSessionRow } from '../http/session.js';
import { findAuthenticatorFlags } from './repo.js';

/**
 * The extension request flags of a session (reference auth-and-pki §1.8), read live from its cert
 * authenticator so an admin's request shows on sessions that already exist. Only sessions of
 * network-issued certificates can have them (one indexed read, only for those); omitted when false.
 */
export async function certExtensionFlags(deps: Deps, session: Pick<ApiSessionRow, 'isCertExtendable' | 'authenticatorId'>): Promise<{ isCertExtendRequested?: true; isCertKeyRollRequested?: true }> {
  if (!session.isCertExtendable) return {};
  return extensionFlagsOf(await findAuthenticatorFlags(deps.db, session.authenticatorId));
}

/** The flags as a session shows them: only for network-issued certificates, key roll only with extend. */
export function extensionFlagsOf(a: { isIssuedByNetwork: boolean; isExtendRequested: boolean; isKeyRollRequested: boolean } | undefined): { isCertExtendRequested?: true; isCertKeyRollRequested?: true } {
  if (!a || !a.isIssuedByNetwork || !a.isExtendRequested) return {};
  return a.isKeyRollRequested ? { isCertExtendRequested: true, isCertKeyRollRequested: true } : { isCertExtendRequested: true };
}
