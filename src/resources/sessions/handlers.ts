import { handlers, type ClientOperations, type ManagementOperations, type SharedOperations } from '../../http/handler.js';
import type { SessionManagementDetail } from '../../generated/management-types.js';
import type { RequestSession } from '../../http/session.js';
import { createSession, deleteSession, detailSession, listSessions, sessionRoutePath, type SessionCaller } from './service.js';

const asCaller = (caller: RequestSession): SessionCaller => ({ identityId: caller.identity.id, apiSessionId: caller.apiSession.id, isAdmin: caller.isAdmin, bearer: caller.oidc !== undefined, ridden: caller.ridden });

/** The granting `servicePolicies` are the management detail's; the client's session detail has none. */
const forApi = (api: string) => (s: SessionManagementDetail) => {
  if (api !== 'client') return s;
  const { servicePolicies: _management, ...client } = s;
  return client;
};

/** `/sessions` list, detail and delete on both APIs (§6.3): non-admins see and delete only their own. */
export const sessionHandlers = handlers<SharedOperations>()({
  async listSessions({ api, svc, caller, list, reply }) {
    const page = await listSessions(svc.deps, asCaller(caller), list);
    return reply.list({ data: page.data.map(forApi(api)), meta: page.meta });
  },
  detailSession: async ({ api, svc, caller, params, reply }) => reply.ok(forApi(api)(await detailSession(svc.deps, asCaller(caller), params.id))),
  deleteSession: async ({ svc, caller, params, reply }) => (await deleteSession(svc.deps, asCaller(caller), params.id), reply.empty()),
});

/** Client `POST /sessions` (§6.1). */
export const clientSessionHandlers = handlers<ClientOperations>()({
  createSession: async ({ svc, caller, body, reply }) => reply.createdDetail(await createSession(svc.deps, asCaller(caller), body)),
});

/** Management `GET /sessions/{id}/route-path`. */
export const managementSessionHandlers = handlers<ManagementOperations>()({
  detailSessionRoutePath: async ({ svc, caller, params, reply }) => reply.ok(await sessionRoutePath(svc.deps, asCaller(caller), params.id)),
});
