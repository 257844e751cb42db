import { handlers, type ManagementOperations } from '../../http/handler.js';
import { listRoleAttributes } from '../../policy/service.js';
import { serviceEntity } from './entity.js';
import { listConfigServices, serviceService as service } from './service.js';

/** Management `/services`, `/service-role-attributes`, `/configs/{id}/services` (admin). */
export const serviceHandlers = handlers<ManagementOperations>()({
  listServices: async ({ svc, list, query, caller, reply }) => reply.list(await service.list(svc.deps, list, query, { identityId: caller.identity.id, configTypes: query.configTypes })),
  detailService: async ({ svc, params, caller, reply }) => reply.ok(await service.detail(svc.deps, params.id, { identityId: caller.identity.id })),
  createService: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), serviceEntity),
  updateService: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchService: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteService: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
  listServiceRoleAttributes: async ({ svc, list, reply }) => reply.list(await listRoleAttributes(svc.deps, 'service', list)),
  listConfigServices: async ({ svc, params, list, caller, reply }) => reply.list(await listConfigServices(svc.deps, params.id, list, { identityId: caller.identity.id })),
});
