import { handlers, type ManagementOperations } from '../../http/handler.js';
import { createEnrollment, deleteEnrollment, detailEnrollment, listEnrollments, listIdentityEnrollments, refreshEnrollment } from './service.js';

/** Management `/enrollments` and `/identities/{id}/enrollments`. */
export const enrollmentHandlers = handlers<ManagementOperations>()({
  listEnrollments: async ({ svc, list, reply }) => reply.list(await listEnrollments(svc.deps, list)),
  detailEnrollment: async ({ svc, params, reply }) => reply.ok(await detailEnrollment(svc.deps, params.id)),
  createEnrollment: async ({ svc, body, reply }) => reply.created(await createEnrollment(svc.deps, body), { collection: 'enrollments' }),
  deleteEnrollment: async ({ svc, params, reply }) => (await deleteEnrollment(svc.deps, params.id), reply.empty()),
  // The spec answers a create envelope here; clients read nothing from it.
  refreshEnrollment: async ({ svc, params, body, reply }) => (await refreshEnrollment(svc.deps, params.id, body.expiresAt), reply.ok({ id: params.id, _links: { self: { href: `./enrollments/${params.id}` } } })),
  getIdentityEnrollments: async ({ svc, params, list, reply }) => reply.list(await listIdentityEnrollments(svc.deps, params.id, list)),
});
