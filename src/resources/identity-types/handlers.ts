import { handlers, type ManagementOperations } from '../../http/handler.js';
import { identityTypeService as service } from './service.js';

/** Management `/identity-types` (admin, read-only). */
export const identityTypeHandlers = handlers<ManagementOperations>()({
  listIdentityTypes: async ({ svc, list, reply }) => reply.list(await service.list(svc.deps, list)),
  detailIdentityType: async ({ svc, params, reply }) => reply.ok(await service.detail(svc.deps, params.id)),
});
