import { handlers, type ManagementOperations } from '../../http/handler.js';
import { configEntity } from './entity.js';
import { configService as service, listConfigsOfType } from './service.js';

/** Management `/configs` and `/config-types/{id}/configs` (admin). */
export const configHandlers = handlers<ManagementOperations>()({
  listConfigs: async ({ svc, list, reply }) => reply.list(await service.list(svc.deps, list)),
  detailConfig: async ({ svc, params, reply }) => reply.ok(await service.detail(svc.deps, params.id)),
  createConfig: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), configEntity),
  updateConfig: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchConfig: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteConfig: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
  listConfigsForConfigType: async ({ svc, params, list, reply }) => reply.list(await listConfigsOfType(svc.deps, params.id, list)),
});
