import { handlers, type ManagementOperations } from '../../http/handler.js';
import { authenticatorEntity } from './entity.js';
import { authenticatorService as service } from './service.js';

/** Management `/authenticators` (admin). */
export const authenticatorHandlers = handlers<ManagementOperations>()({
  listAuthenticators: async ({ svc, list, reply }) => reply.list(await service.list(svc.deps, list)),
  detailAuthenticator: async ({ svc, params, reply }) => reply.ok(await service.detail(svc.deps, params.id)),
  createAuthenticator: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), authenticatorEntity),
  updateAuthenticator: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchAuthenticator: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteAuthenticator: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
});
