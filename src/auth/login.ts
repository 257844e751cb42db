import type { ClientCertificate, ServiceContext } from '../deps.js';
import { ApiError } from '../errors.js';
import { authMethods, type AuthenticateBody } from './methods/index.js';
import type { PrimaryAuthResult } from './methods/types.js';
import { authGuards } from './rate-limit.js';

/** A primary login as both `POST /authenticate` and the OIDC login endpoints (`/oidc/login/*`) ask for it. */
export interface LoginRequest {
  method: string;
  body: AuthenticateBody | undefined;
  clientCertificate(): ClientCertificate | undefined;
}

/**
 * Runs one primary authentication by the requested method (src/auth/methods: password, cert, ext-jwt),
 * and then what the caller makes of its result, inside the per-instance concurrency limiter and under the
 * failed-attempt throttle: the same rules, lockout and answers whichever endpoint logs in.
 */
export async function withPrimaryLogin<T>(svc: ServiceContext, request: LoginRequest, then: (result: PrimaryAuthResult, address: string) => Promise<T>): Promise<T> {
  const { deps } = svc;
  const method = authMethods.get(request.method);
  // Unreachable through the spec's enum or the OIDC paths, which name known methods only.
  if (!method) throw new ApiError('INVALID_AUTH_METHOD');
  const { limiter, throttle } = authGuards(deps, deps.config.authConcurrencyLimit);
  const address = svc.clientAddress();
  return limiter.run(async () => then(await method.authenticate({ svc, body: request.body, clientCertificate: request.clientCertificate, address, throttle }), address));
}
