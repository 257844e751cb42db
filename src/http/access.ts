import type { Access, ApiName, OperationSpec } from './operation.js';

export type { Access, ApiName };

/**
 * Who may call an operation (reference auth-and-pki §1.2, model-and-policies §2.10):
 * - `anonymous`: anybody (discovery, authenticate, enrollment, network JWTs, client ext-jwt signers);
 * - `partial`: any valid API session, even one with auth queries (MFA) still outstanding;
 * - `authenticated`: a fully authenticated API session;
 * - `admin`: a fully authenticated session of an admin identity. Unlike the controller, a partially
 *   authenticated admin is *not* an admin: outstanding MFA must block management access too.
 * Every refusal is 401 UNAUTHORIZED, never 403.
 */

/** Operations a partially authenticated session may call: finishing MFA, looking at itself, logging out. */
const PARTIAL_OK: ReadonlySet<string> = new Set([
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

/**
 * The client specification also declares PUT, PATCH and DELETE on `/services/{id}`, which the controller
 * never serves to end users. They share operationIds with the management operations, so a shared handler
 * would otherwise open service editing to any identity: only admins may reach them.
 */
const CLIENT_ADMIN_ONLY: ReadonlySet<string> = new Set(['updateService', 'patchService', 'deleteService']);

export function accessFor(api: ApiName, op: Pick<OperationSpec, 'operationId' | 'path' | 'anonymous'>): Access {
  if (op.anonymous) return 'anonymous';
  if (PARTIAL_OK.has(op.operationId)) return 'partial';
  if (api === 'client') return CLIENT_ADMIN_ONLY.has(op.operationId) ? 'admin' : 'authenticated';
  return MANAGEMENT_SELF_SERVICE.test(op.path) ? 'authenticated' : 'admin';
}
