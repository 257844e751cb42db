import { handlers, type ManagementOperations } from '../../http/handler.js';
import { configTypeEntity } from './entity.js';
import { configTypeService as service } from './service.js';

/** Management `/config-types` (admin). */
export const configTypeHandlers = handlers<ManagementOperations>()({
  listConfigTypes: async ({ svc, list, reply }) => reply.list(await service.list(svc.deps, list)),
  detailConfigType: async ({ svc, params, reply }) => reply.ok(await service.detail(svc.deps, params.id)),
  createConfigType: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), configTypeEntity),
  updateConfigType: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchConfigType: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteConfigType: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
});
