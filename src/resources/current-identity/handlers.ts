import { handlers, type ClientOperations, type SharedOperations } from '../../http/handler.js';
import { currentIdentityEdgeRouters } from './edge-routers.js';
import { currentIdentity, listOwnAuthenticators, ownAuthenticator, updateOwnAuthenticator } from './service.js';

/** `/current-identity` and its authenticators, on both APIs. */
export const currentIdentityHandlers = handlers<SharedOperations>()({
  getCurrentIdentity: async ({ svc, caller, reply }) => reply.ok(await currentIdentity(svc.deps, caller)),
  listCurrentIdentityAuthenticators: async ({ svc, caller, list, reply }) => reply.list(await listOwnAuthenticators(svc.deps, caller, list)),
  detailCurrentIdentityAuthenticator: async ({ svc, caller, params, reply }) => reply.ok(await ownAuthenticator(svc.deps, caller, params.id)),
  updateCurrentIdentityAuthenticator: async ({ svc, caller, params, body, reply }) => (await updateOwnAuthenticator(svc, caller, params.id, body, true), reply.empty()),
  patchCurrentIdentityAuthenticator: async ({ svc, caller, params, body, reply }) => (await updateOwnAuthenticator(svc, caller, params.id, body, false), reply.empty()),
});

export const currentIdentityClientHandlers = handlers<ClientOperations>()({
  getCurrentIdentityEdgeRouters: async ({ svc, caller, list, reply }) => reply.list(await currentIdentityEdgeRouters(svc.deps, caller, list)),
});
