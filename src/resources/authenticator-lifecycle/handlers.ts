import { extendAuthenticator, verifyExtension } from '../../enrollment/extend.js';
import { handlers, type ManagementOperations, type SharedOperations } from '../../http/handler.js';
import { reEnroll, requestExtend, requestExtendAll } from './service.js';

/** Certificate extension on both APIs (`/current-identity/authenticators/{id}/extend[-verify]`, §6.5). */
export const certExtensionHandlers = handlers<SharedOperations>()({
  extendCurrentIdentityAuthenticator: async ({ svc, caller, params, body, clientCertificate, reply }) =>
    reply.ok(await extendAuthenticator(svc.deps, caller, params.id, clientCertificate(), body.clientCertCsr)),
  extendVerifyCurrentIdentityAuthenticator: async ({ svc, caller, params, body, reply }) => (await verifyExtension(svc.deps, caller, params.id, body.clientCert), reply.empty()),
});

/** Management: extension requests and re-enrollment of authenticators. */
export const authenticatorLifecycleHandlers = handlers<ManagementOperations>()({
  requestExtendAuthenticator: async ({ svc, params, body, reply }) => (await requestExtend(svc.deps, params.id, body?.rollKeys === true), reply.empty()),
  requestExtendAllCertAuthenticators: async ({ svc, params, body, reply }) => (await requestExtendAll(svc.deps, params.id, body?.rollKeys === true), reply.empty()),
  reEnrollAuthenticator: async ({ svc, params, body, reply }) => reply.created(await reEnroll(svc.deps, params.id, body.expiresAt), { collection: 'enrollments' }),
});
