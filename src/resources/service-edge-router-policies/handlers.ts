import { handlers, type ManagementOperations } from '../../http/handler.js';
import { serviceEdgeRouterPolicyEntity } from './entity.js';
import { serviceEdgeRouterPolicyService as service } from './service.js';

/** Management `/service-edge-router-policies` (admin). */
export const serviceEdgeRouterPolicyHandlers = handlers<ManagementOperations>()({
  listServiceEdgeRouterPolicies: async ({ svc, list, reply }) => reply.list(await service.list(svc.deps, list)),
  detailServiceEdgeRouterPolicy: async ({ svc, params, reply }) => reply.ok(await service.detail(svc.deps, params.id)),
  createServiceEdgeRouterPolicy: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), serviceEdgeRouterPolicyEntity),
  updateServiceEdgeRouterPolicy: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchServiceEdgeRouterPolicy: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteServiceEdgeRouterPolicy: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
});
