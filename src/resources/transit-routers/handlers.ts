import { handlers, type ManagementOperations } from '../../http/handler.js';
import { transitRouterEntity } from './entity.js';
import { transitRouterService as service } from './service.js';

/** Management `/transit-routers` and its alias `/routers` (admin). */
export const transitRouterHandlers = handlers<ManagementOperations>()({
  listTransitRouters: async ({ svc, list, reply }) => reply.list(await service.list(svc.deps, list)),
  detailTransitRouter: async ({ svc, params, reply }) => reply.ok(await service.detail(svc.deps, params.id)),
  createTransitRouter: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), transitRouterEntity),
  updateTransitRouter: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchTransitRouter: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteTransitRouter: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
  listRouters: async ({ svc, list, reply }) => reply.list(await service.list(svc.deps, list)),
  detailRouter: async ({ svc, params, reply }) => reply.ok(await service.detail(svc.deps, params.id)),
  createRouter: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), transitRouterEntity),
  updateRouter: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchRouter: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteRouter: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
});
