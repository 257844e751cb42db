import { handlers, type ManagementOperations } from '../../http/handler.js';
import { listRoleAttributes } from '../../policy/service.js';
import { edgeRouterEntity } from './entity.js';
import { reEnrollEdgeRouter, edgeRouterService as service } from './service.js';

/** Management `/edge-routers` and `/edge-router-role-attributes` (admin). */
export const edgeRouterHandlers = handlers<ManagementOperations>()({
  listEdgeRouters: async ({ svc, list, query, reply }) => reply.list(await service.list(svc.deps, list, query)),
  detailEdgeRouter: async ({ svc, params, reply }) => reply.ok(await service.detail(svc.deps, params.id)),
  createEdgeRouter: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), edgeRouterEntity),
  updateEdgeRouter: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchEdgeRouter: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteEdgeRouter: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
  reEnrollEdgeRouter: async ({ svc, params, reply }) => (await reEnrollEdgeRouter(svc.deps, params.id), reply.empty()),
  listEdgeRouterRoleAttributes: async ({ svc, list, reply }) => reply.list(await listRoleAttributes(svc.deps, 'router', list)),
});
