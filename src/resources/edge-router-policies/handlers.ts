import { handlers, type ManagementOperations } from '../../http/handler.js';
import { edgeRouterPolicyEntity } from './entity.js';
import { edgeRouterPolicyService as service } from './service.js';

/** Management `/edge-router-policies` (admin). */
export const edgeRouterPolicyHandlers = handlers<ManagementOperations>()({
  listEdgeRouterPolicies: async ({ svc, list, reply }) => reply.list(await service.list(svc.deps, list)),
  detailEdgeRouterPolicy: async ({ svc, params, reply }) => reply.ok(await service.detail(svc.deps, params.id)),
  createEdgeRouterPolicy: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), edgeRouterPolicyEntity),
  updateEdgeRouterPolicy: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchEdgeRouterPolicy: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteEdgeRouterPolicy: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
});
