import { handlers, type ManagementOperations } from '../../http/handler.js';
import { servicePolicyEntity } from './entity.js';
import { servicePolicyService as service } from './service.js';

/** Management `/service-policies` (admin). */
export const servicePolicyHandlers = handlers<ManagementOperations>()({
  listServicePolicies: async ({ svc, list, reply }) => reply.list(await service.list(svc.deps, list)),
  detailServicePolicy: async ({ svc, params, reply }) => reply.ok(await service.detail(svc.deps, params.id)),
  createServicePolicy: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), servicePolicyEntity),
  updateServicePolicy: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchServicePolicy: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteServicePolicy: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
});
