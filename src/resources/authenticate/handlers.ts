import type { AuthenticateBody } from '../../auth/methods/index.js';
import { json } from '../../http/envelope.js';
import type { HandlerMap, OpContext } from '../../http/handler.js';
import { renderCurrentApiSession } from '../api-sessions/mapper.js';
import { authenticate } from './service.js';

export const authenticateHandlers: HandlerMap = {
  /** `POST /authenticate` on both APIs: the new session in the body and in `zt-session`. */
  async authenticate(ctx: OpContext<AuthenticateBody | undefined>) {
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
