import { certExtensionFlags } from '../../enrollment/extension-flags.js';
import { handlers, type ClientOperations, type SharedOperations } from '../../http/handler.js';
import { iso } from '../../lib/time.js';
import { servicesChangedAt } from '../../policy/service-updates-repo.js';
import { endSession } from '../../oidc/sessions.js';
import { renderCurrentApiSession, renderTokenSession } from '../api-sessions/mapper.js';
import { logout } from '../api-sessions/service.js';

export const currentApiSessionHandlers = handlers<SharedOperations>()({
  /** Allowed while partially authenticated: the auth queries tell the client what remains. */
  async getCurrentAPISession({ svc, caller, reply }) {
    // An access token's session is rendered from its claims alone (reference oidc.md §7.3).
    if (caller.oidc) return reply.ok(renderTokenSession(caller.apiSession, caller.identity.name, caller.oidc.claims, svc.deps.now()));
    const flags = await certExtensionFlags(svc.deps, caller.apiSession);
    return reply.ok(renderCurrentApiSession(caller.apiSession, caller.identity.name, caller.authQueries, svc.deps.config.sessionTimeoutSeconds, flags));
  },
  /** Logout; allowed while partially authenticated. An access token's session is revoked (the controller answers 404). */
  deleteCurrentApiSession: async ({ svc, caller, reply }) => (await (caller.oidc ? endSession(svc.deps, caller.apiSession.id) : logout(svc.deps, caller.apiSession.id)), reply.empty()),
});

export const currentApiSessionClientHandlers = handlers<ClientOperations>()({
  /**
   * Polled every few seconds by every tunneler (reference model-and-policies §4.5): answered from the
   * session check's own row (src/policy/service-updates-repo.ts), no further read and no write; a bearer
   * session, checked without the store, reads the one column. Before any change was recorded for the
   * identity, the API session's creation time.
   */
  async listServiceUpdates({ svc, caller, reply }) {
    const changedAt = caller.oidc ? await servicesChangedAt(svc.deps.db, caller.identity.id) : caller.identity.servicesChangedAt;
    return reply.ok({ lastChangeAt: iso(changedAt ?? caller.apiSession.createdAt) });
  },
});
