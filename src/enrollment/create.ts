import type { Deps } from '../deps.js';
import { ApiError, fieldError } from '../errors.js';
import { type Statement } from '../crud/repo.js';
import { uuid } from '../lib/ids.js';
import { shortId } from '../lib/ids.js';
import { enrollmentClaims } from '../pki/network-jwt.js';
import { findCa, findIdentity, insertEnrollment, usernameTaken, type EnrollmentMethod } from './repo.js';
import { seal, tokenHash } from './seal.js';

/** A new enrollment, ready to be written in its creator's batch. */
export interface PreparedEnrollment {
  id: string;
  method: EnrollmentMethod;
  statement(deps: Deps): Statement;
}

/** A fresh token and its sealed, signed JWT (reference auth-and-pki §5.2). */
export async function mintToken(deps: Deps, subject: string, method: EnrollmentMethod, expiresAt: number) {
  const token = uuid();
  const ctrls = deps.config.ctrlAddress ? [deps.config.ctrlAddress] : null;
  const jwt = await deps.pki.signJwt(enrollmentClaims(deps.config.apiAddress, subject, token, method, expiresAt, ctrls));
  return { token, jwt, tokenHash: await tokenHash(token), jwtSealed: await seal(deps.config.controllerSecret, jwt) };
}

/** The default expiry of enrollments created with an identity (ZITI_ENROLLMENT_DURATION_MINUTES). */
export function defaultExpiry(deps: Deps): number {
  return deps.now() + deps.config.enrollmentDurationMinutes * 60_000;
}

function referenced(field: string, reason: string, value: unknown): ApiError {
  return fieldError(field, reason, value, 'REFERENCED_ENTITY_NOT_FOUND');
}

export interface EnrollmentRequest {
  method: EnrollmentMethod;
  identityId: string;
  expiresAt: number;
  caId?: string | null;
  username?: string | null;
}

/**
 * Checks an enrollment request as `POST /enrollments` does (reference §5.1, in the controller's order)
 * and mints its token and JWT. `identityKnown` skips the identity lookup for an identity created in the
 * same batch. "One enrollment per method" is not checked here: the store's unique index holds it.
 */
export async function prepareEnrollment(deps: Deps, req: EnrollmentRequest, identityKnown = false, options: { usernameFreed?: boolean } = {}): Promise<PreparedEnrollment> {
  if (!identityKnown) {
    const identity = await findIdentity(deps.db, req.identityId);
    if (!identity) throw referenced('identityId', 'identity not found', req.identityId);
    // A tunneler-enabled router's identity holds no credential of its own (model-and-policies §9.2).
    if (identity.typeId === 'Router') throw fieldError('identityId', 'may not create enrollments for router identities', req.identityId);
  }
  const now = deps.now();
  if (req.expiresAt <= now) throw referenced('expiresAt', 'expiresAt must be in the future', new Date(req.expiresAt).toISOString());
  let caId: string | null = null;
  let username: string | null = null;
  if (req.method === 'ottca') {
    if (!req.caId || !(await findCa(deps.db, req.caId))) throw referenced('caId', 'ca not found', req.caId ?? '');
    caId = req.caId;
  }
  if (req.method === 'updb') {
    if (!req.username) throw referenced('username', 'username is required for updb enrollments', req.username ?? '');
    const n = [...req.username].length;
    if (n < 4 || n > 100) throw fieldError('username', 'username should be 4 to 100 characters long', req.username);
    // Usernames are unique here (docs/adr): refused now rather than when the device enrolls. Re-enrolling
    // a updb authenticator frees its own username in the same batch.
    if (!options.usernameFreed && (await usernameTaken(deps.db, req.username))) throw fieldError('username', 'username must be unique', req.username);
    username = req.username;
  }
  const id = shortId();
  const minted = await mintToken(deps, req.identityId, req.method, req.expiresAt);
  return {
    id,
    method: req.method,
    statement: (d) =>
      insertEnrollment(d.db, {
        id,
        createdAt: now,
        updatedAt: now,
        tags: '{}',
        method: req.method,
        identityId: req.identityId,
        caId,
        username,
        tokenHash: minted.tokenHash,
        jwtSealed: minted.jwtSealed,
        issuedAt: now,
        expiresAt: req.expiresAt,
      }),
  };
}

/** The 409 of a second enrollment of one method for an identity, raised from the unique index. */
export function enrollmentExists(method: string): ApiError {
  return new ApiError('ENROLLMENT_EXISTS', { field: 'method', reason: 'enrollment of same method exists', value: method });
}

/** The `enrollment` of `POST /identities`: at most one, precedence ott > ottca > updb (reference §5.1). */
export function identityEnrollmentRequest(deps: Deps, identityId: string, body: { ott?: boolean | null; ottca?: string | null; updb?: string | null } | null | undefined): EnrollmentRequest | undefined {
  if (!body) return undefined;
  const expiresAt = defaultExpiry(deps);
  if (body.ott) return { method: 'ott', identityId, expiresAt };
  if (body.ottca) return { method: 'ottca', identityId, expiresAt, caId: body.ottca };
  if (body.updb) return { method: 'updb', identityId, expiresAt, username: body.updb };
  return undefined;
}
