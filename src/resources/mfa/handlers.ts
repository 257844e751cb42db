import { json, withHeaders } from '../../http/envelope.js';
import { handlers, type ManagementOperations, type SharedOperations } from '../../http/handler.js';
import { renderCreatedMfa } from './mapper.js';
import {
  authenticateMfa,
  deleteMfa,
  detailMfa,
  detailRecoveryCodes,
  enrollMfa,
  mfaQrCode,
  regenerateRecoveryCodes,
  removeIdentityMfa,
  verifyMfa,
} from './service.js';

/**
 * The controller also takes the code of `DELETE /current-identity/mfa` from a JSON body `{"code": …}`
 * (before the header), which the specification does not declare; clients and tests send it. Anything
 * else in the body is ignored.
 */
function bodyCode(raw: Uint8Array): string | undefined {
  if (raw.byteLength === 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(raw));
    const code = parsed && typeof parsed === 'object' ? (parsed as { code?: unknown }).code : undefined;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** Replies that can carry the secret or recovery codes must not be kept by caches. */
function noStore<R extends Response>(response: R): R {
  // Remade where the envelope can (rare replies: the same on both runtimes).
  return withHeaders(response, { 'cache-control': 'no-store' }, true) as R;
}

/** `/authenticate/mfa` and the `/current-identity/mfa` family, on both APIs. */
export const mfaHandlers = handlers<SharedOperations>()({
  authenticateMfa: async ({ svc, caller, body, reply }) => (await authenticateMfa(svc, caller, body.code), reply.empty()),
  enrollMfa: async ({ svc, caller, reply }) => reply.raw(json(renderCreatedMfa(await enrollMfa(svc, caller)), 201)),
  detailMfa: async ({ svc, caller, reply }) => noStore(reply.ok(await detailMfa(svc, caller))),
  detailMfaQrCode: async ({ svc, caller, reply }) =>
    noStore(reply.raw(new Response(await mfaQrCode(svc, caller), { headers: { 'content-type': 'image/png' } }))),
  verifyMfa: async ({ svc, caller, body, reply }) => (await verifyMfa(svc, caller, body.code), reply.empty()),
  deleteMfa: async ({ svc, caller, headers, rawBody, reply }) => (await deleteMfa(svc, caller, bodyCode(rawBody) ?? headers['mfa-validation-code']), reply.empty()),
  detailMfaRecoveryCodes: async ({ svc, caller, body, headers, reply }) =>
    // A code in the body, even an empty one, wins over the header (the controller reads it that way).
    noStore(reply.ok(await detailRecoveryCodes(svc, caller, body?.code ?? headers['mfa-validation-code']))),
  createMfaRecoveryCodes: async ({ svc, caller, body, reply }) => (await regenerateRecoveryCodes(svc, caller, body.code), reply.empty()),
});

/** `DELETE /identities/{id}/mfa` (admin). */
export const identityMfaHandlers = handlers<ManagementOperations>()({
  removeIdentityMfa: async ({ svc, params, reply }) => (await removeIdentityMfa(svc, params.id), reply.empty()),
});
