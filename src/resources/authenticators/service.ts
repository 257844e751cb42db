import { hashPassword } from '../../auth/password.js';
import { findEntity, resourceService, type ResourceService } from '../../crud/service.js';
import { registeredCertificate } from '../../enrollment/register-cert.js';
import { ApiError, fieldError, notFound } from '../../errors.js';
import type { AuthenticatorCreate, AuthenticatorPatch } from '../../generated/management-types.js';
import { assertUsername } from '../../lib/limits.js';
import { identityEntity } from '../identities/entity.js';
import { authenticatorEntity } from './entity.js';
import { renderAuthenticator } from './mapper.js';
import { authenticatorCascade, authenticatorExtras, countIdentityMethod, insertAuthenticator, missingIdentity, passwordChangedStatements, secondUpdb } from './repo.js';

export const USERNAME_MIN = 4;
export const USERNAME_MAX = 100;
export const PASSWORD_MIN = 5;
export const PASSWORD_MAX = 100;

/** The spec's lengths: usernames 4..100, passwords 5..100. A password is never echoed back. */
function checkUsername(username: unknown): string {
  if (typeof username !== 'string' || username === '') throw fieldError('username', 'username in body is required', username ?? '');
  const n = [...username].length;
  if (n < USERNAME_MIN) throw fieldError('username', `username in body should be at least ${USERNAME_MIN} chars long`, username);
  if (n > USERNAME_MAX) throw fieldError('username', `username in body should be at most ${USERNAME_MAX} chars long`, username);
  assertUsername(username);
  return username;
}

function checkPassword(password: unknown): string {
  if (typeof password !== 'string' || password === '') throw fieldError('password', 'password in body is required');
  const n = [...password].length;
  if (n < PASSWORD_MIN) throw fieldError('password', `password in body should be at least ${PASSWORD_MIN} chars long`);
  if (n > PASSWORD_MAX) throw fieldError('password', `password in body should be at most ${PASSWORD_MAX} chars long`);
  return password;
}

/**
 * Admin authenticators (reference auth-and-pki §2.2, §2.5): `updb` only for now. An identity holds at
 * most one per method (409 MAX_AUTHENTICATOR_METHODS_REACHED); router identities hold none. Passwords
 * are hashed with a fresh salt on every set; an admin does not need the current password and is not held
 * to the auth policy's complexity rules (those apply to passwords an identity chooses itself).
 */
const service = resourceService(authenticatorEntity, {
  extras: () => authenticatorExtras(),
  render: (r) => renderAuthenticator(r.row, r.identityName ?? ''),
  create: {
    async check(deps, values, body: AuthenticatorCreate) {
      const { row: identity } = await findEntity(deps, identityEntity, body.identityId);
      if (identity.typeId === 'Router') throw fieldError('identityId', 'authenticators cannot be created for router identities', body.identityId);
      if (body.method === 'cert') {
        if ((await countIdentityMethod(deps.db, identity.id, 'cert')) > 0) throw new ApiError('MAX_AUTHENTICATOR_METHODS_REACHED');
        Object.assign(values, { identityId: identity.id, method: 'cert', ...(await registeredCertificate(deps, body.certPem)) });
        return;
      }
      if (body.method !== 'updb') throw fieldError('method', 'method in body should be one of [updb cert]', body.method);
      const username = checkUsername(body.username);
      const password = checkPassword(body.password);
      if ((await countIdentityMethod(deps.db, identity.id, 'updb')) > 0) throw new ApiError('MAX_AUTHENTICATOR_METHODS_REACHED');
      Object.assign(values, { identityId: identity.id, method: 'updb', username, passwordHash: await hashPassword(password) });
    },
    insert: (deps, row) => insertAuthenticator(deps.db, row),
  },
  update: {
    async check(_deps, values, existing, body: AuthenticatorPatch) {
      const username = body.username ?? undefined;
      const password = body.password ?? undefined;
      if (username === undefined && password === undefined) return;
      // Certificates are replaced by extension or re-enrolment, never by setting credentials.
      if (existing.method !== 'updb') throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR');
      if (username !== undefined) values.username = checkUsername(username);
      if (password !== undefined) values.passwordHash = await hashPassword(checkPassword(password));
    },
    statements: (deps, existing, values) => (values.passwordHash !== undefined ? passwordChangedStatements(deps.db, existing.id) : []),
  },
  remove: {
    cascade: (deps, existing) => authenticatorCascade(deps.db, existing.id),
  },
});

/**
 * The store decides the races the checks above cannot: a second password authenticator created at the
 * same time (the partial unique index) is 409, an identity deleted meanwhile (the conditional insert) 404.
 */
export const authenticatorService: ResourceService<ReturnType<typeof renderAuthenticator>, AuthenticatorCreate, AuthenticatorPatch> = {
  ...service,
  async create(deps, body) {
    try {
      return await service.create(deps, body);
    } catch (e) {
      if (secondUpdb(e)) throw new ApiError('MAX_AUTHENTICATOR_METHODS_REACHED');
      if (missingIdentity(e)) throw notFound('identity', body.identityId);
      throw e;
    }
  },
};
