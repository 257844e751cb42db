import { handlers, type ManagementOperations } from '../../http/handler.js';
import { updateIdentityTrace } from './service.js';

/** `PUT /identities/{id}/trace`. */
export const identityTraceHandlers = handlers<ManagementOperations>()({
  updateIdentityTracing: async ({ svc, params, body, reply }) => reply.ok(await updateIdentityTrace(svc.deps, params.id, body)),
});
