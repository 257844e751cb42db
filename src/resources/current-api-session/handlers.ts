import { certExtensionFlags } from '../../enrollment/extension-flags.js';
import { empty, ok } from '../../http/envelope.js';
import type { HandlerMap } from '../../http/handler.js';
import { renderCurrentApiSession } from '../api-sessions/mapper.js';
import { deleteApiSession } from '../api-sessions/repo.js';

export const currentApiSessionHandlers: HandlerMap = {
  /** Allowed while partially authenticated: the auth queries tell the client what remains. */
  async getCurrentAPISession({ caller, deps }) {
    const flags = await certExtensionFlags(deps, caller.apiSession);
    return ok({ ...renderCurrentApiSession(caller.apiSession, caller.identity.name, caller.authPolicy, deps.config.sessionTimeoutSeconds), ...flags });
  },
  /** Logout; allowed while partially authenticated. */
  async deleteCurrentApiSession({ caller, deps }) {
    await deleteApiSession(deps.db, caller.apiSession.id);
    return empty();
  },
};
