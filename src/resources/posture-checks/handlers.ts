import { handlers, type ManagementOperations } from '../../http/handler.js';
import { postureCheckEntity } from './entity.js';
import { listPostureCheckRoleAttributes, listServicePolicyPostureChecks, postureCheckService as service } from './service.js';

/** Management `/posture-checks`, their role attributes and `/service-policies/{id}/posture-checks` (admin). */
export const postureCheckHandlers = handlers<ManagementOperations>()({
  listPostureChecks: async ({ svc, list, query, reply }) => reply.list(await service.list(svc.deps, list, query)),
  detailPostureCheck: async ({ svc, params, reply }) => reply.ok(await service.detail(svc.deps, params.id)),
  createPostureCheck: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), postureCheckEntity),
  updatePostureCheck: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchPostureCheck: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deletePostureCheck: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
  listPostureCheckRoleAttributes: async ({ svc, list, reply }) => reply.list(await listPostureCheckRoleAttributes(svc.deps, list)),
  listServicePolicyPostureChecks: async ({ svc, params, list, reply }) => reply.list(await listServicePolicyPostureChecks(svc.deps, params.id, list)),
});
