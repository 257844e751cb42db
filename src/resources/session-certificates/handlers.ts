import { listResponse } from '../../http/crud.js';
import { empty, json, ok } from '../../http/envelope.js';
import type { HandlerMap, OpContext } from '../../http/handler.js';
import { createSessionCertificate, deleteSessionCertificate, detailSessionCertificate, listSessionCertificates } from './service.js';

/** Client `/current-api-session/certificates` (reference auth-and-pki §6.7), scoped to the caller's session. */
export const sessionCertificateHandlers: HandlerMap = {
  async listCurrentApiSessionCertificates({ deps, caller, query }) {
    return listResponse(await listSessionCertificates(deps, caller, query));
  },
  async detailCurrentApiSessionCertificate({ deps, caller, params }) {
    return ok(await detailSessionCertificate(deps, caller, params.id));
  },
  async deleteCurrentApiSessionCertificate({ deps, caller, params }) {
    await deleteSessionCertificate(deps, caller, params.id);
    return empty();
  },
  async createCurrentApiSessionCertificate({ deps, caller, body }: OpContext<{ csr: string }>) {
    const { id, certificate, cas } = await createSessionCertificate(deps, caller, body.csr);
    return json({ data: { id, _links: { self: { href: `./current-api-session/certificates/${id}` } }, certificate, cas }, meta: {} }, 201);
  },
};
