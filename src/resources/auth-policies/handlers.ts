import { handlers, type ManagementOperations } from '../../http/handler.js';
import { authPolicyEntity } from './entity.js';
import { authPolicyService as service } from './service.js';

/** Management `/auth-policies` (admin). */
export const authPolicyHandlers = handlers<ManagementOperations>()({
  listAuthPolicies: async ({ svc, list, reply }) => reply.list(await service.list(svc.deps, list)),
  detailAuthPolicy: async ({ svc, params, reply }) => reply.ok(await service.detail(svc.deps, params.id)),
  createAuthPolicy: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), authPolicyEntity),
  updateAuthPolicy: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchAuthPolicy: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteAuthPolicy: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
});
