import type { AuthenticateBody } from '../../auth/methods/index.js';
import { json } from '../../http/envelope.js';
import type { HandlerMap, OpContext } from '../../http/handler.js';
import { renderCurrentApiSession } from '../api-sessions/mapper.js';
import { authenticate } from './service.js';

export const authenticateHandlers: HandlerMap = {
  /** `POST /authenticate` on both APIs: the new session in the body and in `zt-session`. */
  async authenticate(ctx: OpContext<AuthenticateBody | undefined>) {
    const { apiSession, identity, authPolicy, certExtension: flags } = await authenticate(ctx);
    const timeout = ctx.deps.config.sessionTimeoutSeconds;
    const data = { ...renderCurrentApiSession(apiSession, identity.name, authPolicy, timeout), ...flags };
    const response = json({ data, meta: {} }, 200, {
      'zt-session': apiSession.token,
      'expiration-seconds': String(timeout),
      'expires-at': data.expiresAt,
    });
    // The controller sends this header once per flag under the same name (reference §1.3 quirk).
    if (flags.isCertExtendRequested) response.headers.append('ziti-authenticator-extend-requested', 'true');
    if (flags.isCertKeyRollRequested) response.headers.append('ziti-authenticator-extend-requested', 'true');
    return response;
  },
};
