import { json } from '../../http/envelope.js';
import type { HandlerMap } from '../../http/handler.js';
import { renderCurrentApiSession } from '../api-sessions/mapper.js';
import { authenticate } from './service.js';

export const authenticateHandlers: HandlerMap = {
  async authenticate(ctx) {
    const { apiSession, identity, authPolicy } = await authenticate(ctx);
    const timeout = ctx.deps.config.sessionTimeoutSeconds;
    const data = renderCurrentApiSession(apiSession, identity.name, authPolicy, timeout);
    return json({ data, meta: {} }, 200, {
      'zt-session': apiSession.token,
      'expiration-seconds': String(timeout),
      'expires-at': data.expiresAt,
    });
  },
};
