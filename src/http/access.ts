import type { OperationSpec } from './operation.js';

/**
 * Who may call an operation:
 * - `anonymous`: anybody (discovery, authenticate, enrollment, network JWTs);
 * - `partial`: any valid API session, even one with MFA still outstanding;
 * - `authenticated`: a fully authenticated API session;
 * - `admin`: a fully authenticated session of an admin identity. Unlike the controller, a partially
 *   authenticated admin is *not* an admin: outstanding MFA must block management access too.
 */
export type Access = 'anonymous' | 'partial' | 'authenticated' | 'admin';
export type ApiName = 'client' | 'management';

/** Operations a partially authenticated session may call: finishing MFA, looking at itself, logging out. */
const PARTIAL_OK = new Set([
  'authenticateMfa',
  'getCurrentAPISession',
  'deleteCurrentApiSession',
  'detailMfa',
  'enrollMfa',
  'detailMfaQrCode',
  'verifyMfa',
]);

/** Management paths that any authenticated identity may use; everything else there needs an admin. */
const MANAGEMENT_SELF_SERVICE = /^\/(current-api-session|current-identity|sessions|authenticate)(\/|$)/;

export function accessFor(api: ApiName, op: OperationSpec): Access {
  if (op.anonymous) return 'anonymous';
  if (PARTIAL_OK.has(op.operationId)) return 'partial';
  if (api === 'management' && !MANAGEMENT_SELF_SERVICE.test(op.path)) return 'admin';
  return 'authenticated';
}
