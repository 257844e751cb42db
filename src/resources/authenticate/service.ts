import { clientAddress } from '../../auth/client-address.js';
import { NO_CONFIG_TYPES, resolveConfigTypes } from '../../auth/config-types.js';
import { authMethods, type AuthenticateBody } from '../../auth/methods/index.js';
import { authGuards } from '../../auth/rate-limit.js';
import { atomic } from '../../db/client.js';
import { ApiError } from '../../http/errors.js';
import type { OpContext } from '../../http/handler.js';
import { newSessionToken } from '../../auth/session-token.js';
import type { ApiSessionRow, ApiSessionWithToken, AuthPolicyRow, IdentityRow } from '../../db/schema/rows.js';
import { cuid } from '../../lib/ids.js';
import { sweepExpiredSessions } from '../api-sessions/service.js';
import { insertApiSession, updateIdentityClientInfo } from './repo.js';

const ENV_FIELDS = ['arch', 'os', 'osRelease', 'osVersion', 'domain', 'hostname'] as const;
const SDK_FIELDS = ['appId', 'appVersion', 'branch', 'revision', 'type', 'version'] as const;

/** The stored form of envInfo/sdkInfo: every field present (missing ones as ''), in a fixed order. */
function normaliseInfo(info: Record<string, string | null | undefined> | null | undefined, fields: readonly string[]): string | undefined {
  if (!info) return undefined;
  return JSON.stringify(Object.fromEntries(fields.map((f) => [f, info[f] ?? ''])));
}

export interface AuthenticateResult {
  /** The new session with its token, which the caller receives once; the store keeps its hash. */
  apiSession: ApiSessionWithToken;
  identity: IdentityRow;
  authPolicy: AuthPolicyRow;
}

/**
 * `POST /authenticate` (reference auth-and-pki §1.3): primary authentication by the requested method,
 * then the new API session and the identity's envInfo/sdkInfo in one atomic batch. The whole attempt
 * runs inside the per-instance concurrency limiter.
 */
export async function authenticate(ctx: OpContext<AuthenticateBody | undefined>): Promise<AuthenticateResult> {
  const { deps } = ctx;
  const method = authMethods.get(ctx.query.method ?? '');
  // Unreachable through the spec's enum, which the router checks first.
  if (!method) throw new ApiError('INVALID_AUTH_METHOD');
  const { limiter, throttle } = authGuards(deps, deps.config.authConcurrencyLimit);
  const address = clientAddress(ctx.c);

  return limiter.run(async () => {
    const result = await method.authenticate({ ctx, address, throttle });
    const { token, tokenHash } = await newSessionToken();
    const now = deps.now();
    const apiSession: ApiSessionRow = {
      id: cuid(),
      createdAt: now,
      updatedAt: now,
      tags: '{}',
      isSystem: false,
      tokenHash,
      identityId: result.identity.id,
      authenticatorId: result.authenticatorId,
      ipAddress: address,
      configTypes: JSON.stringify(resolveConfigTypes(ctx.body?.configTypes, NO_CONFIG_TYPES)),
      // MFA enrolments do not exist yet, so no identity has a verified one (§1.3 step 4).
      isMfaRequired: false,
      isMfaComplete: false,
      passedMfaAt: null,
      isCertExtendable: result.isCertExtendable,
      improperClientCertChain: result.improperClientCertChain,
      lastActivityAt: now,
    };
    const statements = [insertApiSession(deps.db, apiSession), ...result.statements];
    let identity = result.identity;
    // Replaced as a whole, and only when different: most logins write nothing but the session (§1.10).
    const envInfo = normaliseInfo(ctx.body?.envInfo, ENV_FIELDS) ?? identity.envInfo;
    const sdkInfo = normaliseInfo(ctx.body?.sdkInfo, SDK_FIELDS) ?? identity.sdkInfo;
    if (envInfo !== identity.envInfo || sdkInfo !== identity.sdkInfo) {
      statements.push(updateIdentityClientInfo(deps.db, identity.id, { envInfo, sdkInfo }, now));
      identity = { ...identity, envInfo, sdkInfo, updatedAt: now };
    }
    await atomic(deps.db, statements);
    sweepExpiredSessions(deps, ctx.defer);
    return { apiSession: { ...apiSession, token }, identity, authPolicy: result.authPolicy };
  });
}
