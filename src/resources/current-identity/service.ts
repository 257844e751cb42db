import { countPasswordFailure } from '../../auth/lockout.js';
import { hashPassword, verifyPassword } from '../../auth/password.js';
import { passwordPolicyError } from '../../auth/password-policy.js';
import { findAuthPolicy, resetFailures } from '../../auth/repo.js';
import { riddenValue } from '../../auth/session-repo.js';
import { authGuards } from '../../auth/rate-limit.js';
import { ApiError, fieldError, notFound } from '../../errors.js';
import { listMeta, resolveListQuery, type ListQueryParams } from '../../crud/list-query.js';
import type { Deps, ServiceContext } from '../../deps.js';
import type { AuthenticatorUpdateWithCurrent, AuthenticatorPatchWithCurrent } from '../../generated/management-types.js';
import type { RequestSession } from '../../http/session.js';
import { assertUsername } from '../../lib/limits.js';
import { authenticatorFields } from '../authenticators/entity.js';
import { renderIdentity, type IdentityExtras } from '../identities/mapper.js';
import { renderOwnAuthenticator } from './mapper.js';
import { findIdentityAuthenticator, identityRider, identityWithAuthenticators, listIdentityAuthenticators, saveAuthenticator, usernameTaken, type AuthenticatorChanges } from './repo.js';

/**
 * `GET /current-identity`: the identity row and its authenticators came with the session check
 * (`identityRider`), as did the policy name; an access token's caller has them read here.
 */
export async function currentIdentity(deps: Deps, caller: RequestSession) {
  const found = riddenValue(caller.ridden, identityRider) ?? (await identityWithAuthenticators(deps.db, caller.identity.id));
  // Deleted between the session read and this one.
  if (!found) throw new ApiError('UNAUTHORIZED');
  const summary: IdentityExtras['authenticators'] = {};
  for (const a of found.authenticators) {
    if (a.method === 'updb') summary.updb = { id: a.id, username: a.username ?? '' };
    else summary.cert = { id: a.id, fingerprint: a.fingerprint ?? '' };
  }
  const extras: IdentityExtras = {
    authenticators: summary,
    // The caller holds a session right now.
    hasApiSession: true,
    isMfaEnabled: found.isMfaEnabled,
    // An access token does not name the policy: read it (zt-session callers have it from their session read).
    authPolicyName: caller.oidc ? ((await findAuthPolicy(deps.db, found.identity.authPolicyId))?.name ?? '') : caller.authPolicy.name,
    // The caller is logged in with its enrolled credentials: no enrolment is listed here.
    enrollment: {},
  };
  return renderIdentity(found.identity, extras, deps.now());
}

export { identityRider };

export async function listOwnAuthenticators(deps: Deps, caller: RequestSession, query: ListQueryParams) {
  const q = resolveListQuery(query, authenticatorFields);
  const { rows, total } = await listIdentityAuthenticators(deps.db, caller.identity.id, q);
  return { data: rows.map((a) => renderOwnAuthenticator(a, caller.identity.name)), meta: listMeta(total, q.limit, q.offset, authenticatorFields) };
}

export async function ownAuthenticator(deps: Deps, caller: RequestSession, id: string) {
  const a = await findIdentityAuthenticator(deps.db, caller.identity.id, id);
  if (!a) throw notFound('authenticator', id);
  return renderOwnAuthenticator(a, caller.identity.name);
}

/**
 * Self-service `PUT`/`PATCH /current-identity/authenticators/{id}` (reference auth-and-pki §2.5): only
 * the caller's own updb authenticator, only with its current password. A wrong current password is 401
 * UNAUTHORIZED naming the field but never echoing it, is throttled like a failed login and counts towards
 * the lockout (a stolen session must not become a password oracle). A new password gets a new salt and
 * must satisfy the auth policy's password rules. Existing API sessions survive.
 */
export async function updateOwnAuthenticator(
  svc: ServiceContext,
  caller: RequestSession,
  id: string,
  body: AuthenticatorUpdateWithCurrent | AuthenticatorPatchWithCurrent,
  replace: boolean,
): Promise<void> {
  const { deps } = svc;
  // The session carries only what every request needs of the policy; lockout and password rules are read here.
  const [authenticator, policy] = await Promise.all([findIdentityAuthenticator(deps.db, caller.identity.id, id), findAuthPolicy(deps.db, caller.identity.authPolicyId)]);
  if (!authenticator) throw notFound('authenticator', id);
  if (authenticator.method !== 'updb') throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR');
  if (!policy) throw new ApiError('UNAUTHORIZED');
  const { limiter, throttle } = authGuards(deps, deps.config.authConcurrencyLimit);
  const address = svc.clientAddress();
  const currentUsername = authenticator.username ?? '';
  throttle.check(address, currentUsername, deps.now());

  await limiter.run(async () => {
    if (!(await verifyPassword(body.currentPassword, authenticator.passwordHash))) {
      throttle.failed(address, currentUsername, deps.now());
      await countPasswordFailure(deps, { authenticatorId: authenticator.id, identityId: caller.identity.id, policy }, svc.requestId);
      throw new ApiError('UNAUTHORIZED', { field: 'currentPassword', reason: 'invalid current password' });
    }
    throttle.succeeded(address, currentUsername);

    const now = deps.now();
    const changes: AuthenticatorChanges = { updatedAt: now };
    // PUT writes every field (the schema requires username and password); PATCH only those given.
    const username = body.username ?? undefined;
    const password = body.password ?? undefined;
    if (password !== undefined) {
      const problem = passwordPolicyError(policy, password);
      if (problem) throw problem;
      changes.passwordHash = await hashPassword(password);
    }
    if (username !== undefined && username !== authenticator.username) {
      assertUsername(username);
      if (await usernameTaken(deps.db, username, authenticator.id)) throw usernameInUse(username);
      changes.username = username;
    }
    const tags = body.tags ?? undefined;
    if (replace) changes.tags = JSON.stringify(tags ?? {});
    // PATCH replaces tags only when at least one key is given (reference model-and-policies §2.6).
    else if (tags && Object.keys(tags).length > 0) changes.tags = JSON.stringify(tags);

    // A correct current password also ends any run of failed attempts.
    if (!(await saveAuthenticator(deps.db, authenticator.id, changes, [resetFailures(deps.db, authenticator.id)]))) throw usernameInUse(username ?? '');
  });
}

function usernameInUse(username: string): ApiError {
  return fieldError('username', 'username must be unique', username);
}
