import { json } from '../../http/envelope.js';
import { handlers, type ClientOperations } from '../../http/handler.js';
import { createSessionCertificate, deleteSessionCertificate, detailSessionCertificate, listSessionCertificates } from './service.js';

/** Client `/current-api-session/certificates` (reference auth-and-pki §6.7), scoped to the caller's session. */
export const sessionCertificateHandlers = handlers<ClientOperations>()({
  listCurrentApiSessionCertificates: async ({ svc, caller, list, reply }) => reply.list(await listSessionCertificates(svc.deps, caller, list)),
  detailCurrentApiSessionCertificate: async ({ svc, caller, params, reply }) => reply.ok(await detailSessionCertificate(svc.deps, caller, params.id)),
  deleteCurrentApiSessionCertificate: async ({ svc, caller, params, reply }) => (await deleteSessionCertificate(svc.deps, caller, params.id), reply.empty()),
  async createCurrentApiSessionCertificate({ svc, caller, body, reply }) {
    const { id, certificate, cas } = await createSessionCertificate(svc.deps, caller, body.csr);
    return reply.raw(json({ data: { id, _links: { self: { href: `./current-api-session/certificates/${id}` } }, certificate, cas }, meta: {} }, 201));
  },
});
