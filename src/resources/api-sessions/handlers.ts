import { empty, ok } from '../../http/envelope.js';
import type { HandlerMap } from '../../http/handler.js';
import { listSessions, removeSession, sessionDetail } from './service.js';

/** Management `/api-sessions` (admin). */
export const apiSessionHandlers: HandlerMap = {
  async listAPISessions({ deps, query, caller }) {
    const { data, meta } = await listSessions(deps, query, caller.apiSession);
    return ok(data, meta as unknown as Record<string, unknown>);
  },
  async detailAPISessions({ deps, params, caller }) {
    return ok(await sessionDetail(deps, params.id, caller.apiSession));
  },
  async deleteAPISessions({ deps, params }) {
    await removeSession(deps, params.id);
    return empty();
  },
};
