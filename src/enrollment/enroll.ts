import type { ClientCertificate, Deps } from '../deps.js';
import { ApiError, fieldError, messageError } from '../errors.js';
import { uniqueViolation } from '../crud/repo.js';
import { hashPassword } from '../auth/password.js';
import { sha256Hex } from '../lib/encoding.js';
import { shortId } from '../lib/ids.js';
import { consumeEnrollment, findByTokenHash, identityPolicy, type EnrollmentRow } from './repo.js';
import { passwordPolicyError } from '../auth/password-policy.js';
import { tokenHash } from './seal.js';
import { enrollRouter, type RouterCertificates } from './router.js';
import { enrollCa, enrollOttCa } from './third-party.js';

/** One enrollment attempt, whatever endpoint and body mode it came through (reference §5.3, §5.8). */
export interface EnrollRequest {
  /** `method` of the query or of a dedicated endpoint; absent = the enrollment's own method. */
  method?: string;
  token?: string;
  /** The client CSR: `clientCsr` of JSON bodies, or the PEM body. */
  csrPem?: string;
  /** Routers (`erott`, `trott`): the client CSR of the generic endpoint's JSON body (`certCsr`), preferred to `csrPem`. */
  certCsrPem?: string;
  /** Routers: the server CSR (`serverCertCsr`, or `serverCsr` of `/enroll/erott`). */
  serverCsrPem?: string;
  password?: string;
  /** `[requestedName]` of CA auto-enrollment. */
  name?: string;
  clientCertificate?: ClientCertificate;
}

export type EnrollOutcome = { cert: string } | { username: string } | RouterCertificates | Record<string, never>;

const invalidToken = () => new ApiError('INVALID_ENROLLMENT_TOKEN');

/**
 * Enrolls (reference §5.3–§5.7): `ca` needs no token; otherwise the token names the enrollment, whose
 * method must match a requested one and which must not have expired. The token is consumed exactly once
 * (src/enrollment/repo.ts consumeEnrollment): concurrent attempts with one token give one success and
 * INVALID_ENROLLMENT_TOKEN for the rest.
 */
export async function enroll(deps: Deps, req: EnrollRequest): Promise<EnrollOutcome> {
  if (req.method === 'ca') return enrollCa(deps, req.clientCertificate, req.name);
  if (!req.token) throw invalidToken();
  const enrollment = await findByTokenHash(deps.db, await tokenHash(req.token));
  if (!enrollment || !(enrollment.method === 'erott' ? enrollment.edgeRouterId : enrollment.method === 'trott' ? enrollment.transitRouterId : enrollment.identityId)) throw invalidToken();
  if (req.method && req.method !== enrollment.method) throw new ApiError('INVALID_ENROLL_METHOD');
  if (enrollment.expiresAt <= deps.now()) throw new ApiError('ENROLLMENT_EXPIRED');
  switch (enrollment.method) {
    case 'erott':
    case 'trott':
      return enrollRouter(deps, enrollment, req.certCsrPem ?? req.csrPem, req.serverCsrPem);
    case 'ott':
      return enrollOtt(deps, enrollment, req.csrPem);
    case 'updb':
      return enrollUpdb(deps, enrollment, req.password);
    case 'ottca':
      return enrollOttCa(deps, enrollment, req.clientCertificate);
  }
}

/** OTT (§5.4): the CSR signed by the edge signer; the enrollment becomes a network-issued cert authenticator. */
async function enrollOtt(deps: Deps, enrollment: EnrollmentRow, csrPem: string | undefined): Promise<EnrollOutcome> {
  if (!csrPem || csrPem.trim() === '') throw messageError('COULD_NOT_PROCESS_CSR', 'no CSR supplied');
  const now = deps.now();
  const issued = await deps.pki.issueCertificate(csrPem, { kind: 'identityClient' }, new Date(now));
  const won = await consumeEnrollment(deps.db, enrollment, now, {
    id: shortId(),
    createdAt: now,
    updatedAt: now,
    tags: '{}',
    identityId: enrollment.identityId!,
    method: 'cert',
    certFingerprint: issued.fingerprint,
    certPem: issued.chainPem,
    publicKeyPrint: await sha256Hex(issued.cert.publicKey.rawData),
    isIssuedByNetwork: true,
  });
  if (!won) throw invalidToken();
  return { cert: issued.chainPem };
}

/** UPDB (§5.6): the password chosen by the device; the enrollment becomes a updb authenticator. */
async function enrollUpdb(deps: Deps, enrollment: EnrollmentRow, password: string | undefined): Promise<EnrollOutcome> {
  if (typeof password !== 'string' || password === '') throw fieldError('password', 'password in body is required');
  const n = [...password].length;
  if (n < 5 || n > 100) throw fieldError('password', 'password in body should be 5 to 100 characters long');
  // A password chosen by its owner meets the identity's auth policy (docs/auth.md).
  const policy = await identityPolicy(deps.db, enrollment.identityId!);
  const weak = policy ? passwordPolicyError(policy, password) : undefined;
  if (weak) throw weak;
  const username = enrollment.username ?? '';
  const now = deps.now();
  let won: boolean;
  try {
    won = await consumeEnrollment(deps.db, enrollment, now, {
      id: shortId(),
      createdAt: now,
      updatedAt: now,
      tags: '{}',
      identityId: enrollment.identityId!,
      method: 'updb',
      username,
      passwordHash: await hashPassword(password),
    });
  } catch (e) {
    if (uniqueViolation(e)?.includes('authenticators.username')) throw fieldError('username', 'username must be unique', username);
    throw e;
  }
  if (!won) throw invalidToken();
  return { username };
}
