import { certExtensionFlags } from '../../enrollment/extension-flags.js';
import { handlers, type SharedOperations } from '../../http/handler.js';
import { renderCurrentApiSession } from '../api-sessions/mapper.js';
import { logout } from '../api-sessions/service.js';

export const currentApiSessionHandlers = handlers<SharedOperations>()({
  /** Allowed while partially authenticated: the auth queries tell the client what remains. */
  async getCurrentAPISession({ svc, caller, reply }) {
    const flags = await certExtensionFlags(svc.deps, caller.apiSession);
    return reply.ok({ ...renderCurrentApiSession(caller.apiSession, caller.identity.name, caller.authQueries, svc.deps.config.sessionTimeoutSeconds), ...flags });
  },
  /** Logout; allowed while partially authenticated. */
  deleteCurrentApiSession: async ({ svc, caller, reply }) => (await logout(svc.deps, caller.apiSession.id), reply.empty()),
});
