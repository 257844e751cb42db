import { listResponse } from '../../http/crud.js';
import { created, empty, json, ok } from '../../http/envelope.js';
import type { HandlerMap, OpContext } from '../../http/handler.js';
import { createEnrollment, deleteEnrollment, detailEnrollment, listEnrollments, listIdentityEnrollments, refreshEnrollment } from './service.js';

/** Management `/enrollments` and `/identities/{id}/enrollments`. */
export const enrollmentHandlers: HandlerMap = {
  async listEnrollments({ deps, query }) {
    return listResponse(await listEnrollments(deps, query));
  },
  async detailEnrollment({ deps, params }) {
    return ok(await detailEnrollment(deps, params.id));
  },
  async createEnrollment({ deps, body }: OpContext) {
    const id = await createEnrollment(deps, body);
    return created(id, `./enrollments/${id}`);
  },
  async deleteEnrollment({ deps, params }) {
    await deleteEnrollment(deps, params.id);
    return empty();
  },
  async refreshEnrollment({ deps, params, body }: OpContext<{ expiresAt: string }>) {
    await refreshEnrollment(deps, params.id, body.expiresAt);
    // The spec answers a create envelope here; clients read nothing from it.
    return json({ data: { id: params.id, _links: { self: { href: `./enrollments/${params.id}` } } }, meta: {} });
  },
  async getIdentityEnrollments({ deps, params, query }) {
    return listResponse(await listIdentityEnrollments(deps, params.id, query));
  },
};
