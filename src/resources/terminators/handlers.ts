import { handlers, type ManagementOperations } from '../../http/handler.js';
import { terminatorEntity } from './entity.js';
import { listServiceTerminators, terminatorService as service } from './service.js';

/** Management `/terminators` and `/services/{id}/terminators` (admin). */
export const terminatorHandlers = handlers<ManagementOperations>()({
  listTerminators: async ({ svc, list, reply }) => reply.list(await service.list(svc.deps, list)),
  detailTerminator: async ({ svc, params, reply }) => reply.ok(await service.detail(svc.deps, params.id)),
  createTerminator: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), terminatorEntity),
  updateTerminator: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchTerminator: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteTerminator: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
  listServiceTerminators: async ({ svc, params, list, reply }) => reply.list(await listServiceTerminators(svc.deps, params.id, list)),
});
