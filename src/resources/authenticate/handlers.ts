import { authQueries } from '../../auth/auth-queries.js';
import { secondaryExtJwtQuery } from '../../auth/ext-jwt-secondary.js';
import { handlers, type SharedOperations } from '../../http/handler.js';
import { json } from '../../http/envelope.js';
import { renderCurrentApiSession } from '../api-sessions/mapper.js';
import { authenticate } from './service.js';

export const authenticateHandlers = handlers<SharedOperations>()({
  /** `POST /authenticate` on both APIs: the new session in the body and in `zt-session`. */
  async authenticate({ svc, query, body, clientCertificate, reply }) {
    const { apiSession, identity, authPolicy, certExtension: flags } = await authenticate(svc, { method: query.method, body, clientCertificate });
    const timeout = svc.deps.config.sessionTimeoutSeconds;
    // The secondary ext-jwt check applies to the login request too (§8.3).
    const extJwt = await secondaryExtJwtQuery(svc.deps, authPolicy, identity.id, svc.bearerTokens(), svc.requestId);
    const data = renderCurrentApiSession(apiSession, identity.name, authQueries(apiSession, authPolicy, extJwt), timeout, flags);
    const headers: Record<string, string> = { 'zt-session': apiSession.token, 'expiration-seconds': String(timeout), 'expires-at': data.expiresAt };
    // The controller sends this header once per flag under the same name (reference §1.3 quirk),
    // which HTTP reads as one comma-separated value.
    const extend = [flags.isCertExtendRequested, flags.isCertKeyRollRequested].filter(Boolean).map(() => 'true');
    if (extend.length > 0) headers['ziti-authenticator-extend-requested'] = extend.join(', ');
    return reply.raw(json({ data, meta: {} }, 200, headers));
  },
});
