import { resolveConfigTypes } from '../../auth/config-types.js';
import { requestedConfigTypes } from '../../auth/repo.js';
import { withPrimaryLogin } from '../../auth/login.js';
import type { AuthenticateBody } from '../../auth/methods/index.js';
import type { LoginIdentity, LoginPolicy } from '../../auth/methods/types.js';
import { newSessionToken } from '../../auth/session-token.js';
import type { Statement } from '../../db/client.js';
import type { ApiSessionRow, ApiSessionWithToken } from '../../db/schema/rows.js';
import { ApiError } from '../../errors.js';
import type { ClientCertificate, Deps, ServiceContext } from '../../deps.js';
import { cuid } from '../../lib/ids.js';
import { recordLoginSdkInfo } from '../../posture/repo.js';
import { sweepExpiredSessions } from '../api-sessions/service.js';
import { createApiSession } from '../api-sessions/repo.js';
import { updateIdentityClientInfo } from './repo.js';
import { extend } from '../../lib/objects.js';

const ENV_FIELDS = ['arch', 'os', 'osRelease', 'osVersion', 'domain', 'hostname'] as const;
const SDK_FIELDS = ['appId', 'appVersion', 'branch', 'revision', 'type', 'version'] as const;

/**
 * The stored form of envInfo/sdkInfo: the known fields that were sent non-empty, in a fixed order (`{}` for
 * none). Missing and empty fields are left out, as the controller's `omitempty` model renders them
 * (src/resources/identities/mapper.ts `clientInfo`).
 */
function normaliseInfo(info: Readonly<Record<string, string | null | undefined>> | null | undefined, fields: readonly string[]): string | undefined {
  if (!info) return undefined;
  const stored: Record<string, string> = {};
  for (const f of fields) {
    const value = info[f];
    if (typeof value === 'string' && value !== '') stored[f] = value;
  }
  return JSON.stringify(stored);
}

/**
 * A login's envInfo/sdkInfo (§1.10): replaced as a whole, and only when different, so that most logins
 * write nothing but their session. The statement (if any) goes in the login's batch.
 */
export function clientInfoUpdate(deps: Deps, identity: LoginIdentity, body: AuthenticateBody | undefined, now: number): { identity: LoginIdentity; statement?: Statement } {
  const envInfo = normaliseInfo(body?.envInfo, ENV_FIELDS) ?? identity.envInfo;
  const sdkInfo = normaliseInfo(body?.sdkInfo, SDK_FIELDS) ?? identity.sdkInfo;
  if (envInfo === identity.envInfo && sdkInfo === identity.sdkInfo) return { identity };
  return { identity: extend(identity, { envInfo, sdkInfo, updatedAt: now }), statement: updateIdentityClientInfo(deps.db, identity.id, { envInfo, sdkInfo }, now) };
}

export interface AuthenticateResult {
  /** The new session with its token, which the caller receives once; the store keeps its hash. */
  apiSession: ApiSessionWithToken;
  identity: LoginIdentity;
  authPolicy: LoginPolicy;
  /** The session's extension request flags (reference §1.8), known from the login itself. */
  certExtension: { isCertExtendRequested?: true; isCertKeyRollRequested?: true };
}

/**
 * `POST /authenticate` (reference auth-and-pki §1.3): primary authentication by the requested method,
 * then the new API session and the identity's envInfo/sdkInfo in one atomic batch. The whole attempt
 * runs inside the per-instance concurrency limiter.
 */
export async function authenticate(
  svc: ServiceContext,
  request: { method: string; body: AuthenticateBody | undefined; clientCertificate(): ClientCertificate | undefined },
): Promise<AuthenticateResult> {
  const { deps } = svc;
  const { body } = request;

  return withPrimaryLogin(svc, request, async (result, address) => {
    const catalogue = await requestedConfigTypes(deps.db, body?.configTypes);
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
      configTypes: JSON.stringify(resolveConfigTypes(body?.configTypes, catalogue)),
      // A verified MFA enrolment makes the session partial until POST /authenticate/mfa (§1.3 step 4).
      isMfaRequired: result.hasVerifiedMfa,
      isMfaComplete: false,
      passedMfaAt: null,
      isCertExtendable: result.isCertExtendable,
      improperClientCertChain: result.improperClientCertChain,
      lastActivityAt: now,
    };
    const statements = [...result.statements, ...(result.sessionStatements?.(apiSession.id) ?? [])];
    const info = clientInfoUpdate(deps, result.identity, body, now);
    const identity = info.identity;
    if (info.statement) statements.push(info.statement);
    // The session's SDK info (posture checks ask whether the client can be prompted for MFA again).
    statements.push(recordLoginSdkInfo(deps.db, apiSession.id, identity.id, now));
    // The session exists only if the identity was still enabled when the batch ran (a racing disable or lockout wins).
    if (!(await createApiSession(deps.db, apiSession, now, statements))) throw new ApiError('INVALID_AUTH');
    sweepExpiredSessions(deps, svc.defer);
    return { apiSession: extend(apiSession, { token }), identity, authPolicy: result.authPolicy, certExtension: result.certExtension ?? {} };
  });
}
