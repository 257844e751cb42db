import { certExtensionFlags } from '../../enrollment/extension-flags.js';
import { handlers, type ClientOperations, type SharedOperations } from '../../http/handler.js';
import { iso } from '../../lib/time.js';
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

export const currentApiSessionClientHandlers = handlers<ClientOperations>()({
  /**
   * Polled every few seconds by every tunneler (reference model-and-policies §4.5): answered from the
   * session check's own row (src/policy/service-updates-repo.ts), no further read and no write. Before any
   * change was recorded for the identity, the API session's creation time.
   */
  listServiceUpdates: async ({ caller, reply }) => reply.ok({ lastChangeAt: iso(caller.identity.servicesChangedAt ?? caller.apiSession.createdAt) }),
});
