import { crudHandlers } from '../../http/crud.js';
import type { HandlerMap } from '../../http/handler.js';
import { authPolicyEntity } from './repo.js';
import { authPolicyService } from './service.js';

/** Management `/auth-policies` (admin). */
export const authPolicyHandlers: HandlerMap = crudHandlers(authPolicyEntity, authPolicyService, {
  list: 'listAuthPolicies',
  detail: 'detailAuthPolicy',
  create: 'createAuthPolicy',
  update: 'updateAuthPolicy',
  patch: 'patchAuthPolicy',
  delete: 'deleteAuthPolicy',
});
