import type { Deps } from '../deps.js';
import { revokeOidcSession } from './repo.js';
import { noteRevocation } from './revocations.js';

/**
 * Ends an OIDC API session (`z_asid`): its refresh tokens are refused at once, its access tokens on this
 * instance at once and on every other within the revocation poll bound (src/oidc/revocations.ts). Logout
 * with an access token, an admin's `DELETE /api-sessions/{id}`, `/oidc/revoke` of a refresh token,
 * `/oidc/end_session` and code or refresh-token replays call it. False when no live session has that id.
 */
export async function endSession(deps: Deps, apiSessionId: string): Promise<boolean> {
  const ended = await revokeOidcSession(deps.db, apiSessionId, deps.now());
  if (ended) noteRevocation(deps, 'session', apiSessionId);
  return ended;
}
