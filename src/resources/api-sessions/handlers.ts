import { handlers, type ManagementOperations } from '../../http/handler.js';
import { listSessions, removeSession, sessionDetail } from './service.js';

/** Management `/api-sessions` (admin). */
export const apiSessionHandlers = handlers<ManagementOperations>()({
  listAPISessions: async ({ svc, list, caller, reply }) => reply.list(await listSessions(svc.deps, list, caller.apiSession)),
  detailAPISessions: async ({ svc, params, caller, reply }) => reply.ok(await sessionDetail(svc.deps, params.id, caller.apiSession)),
  deleteAPISessions: async ({ svc, params, reply }) => (await removeSession(svc.deps, params.id), reply.empty()),
});
