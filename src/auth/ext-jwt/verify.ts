import { decodeJwt, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import type { Deps } from '../../deps.js';
import { JwksError } from './jwks.js';
import { isAcceptedAlgorithm, signerKey } from './keys.js';
import { findSignerByIssuer, type SignerRow } from './repo.js';

/** At most this many bearer values are tried (reference auth-and-pki §8.2). */
const MAX_CANDIDATES = 2;

/**
 * The bearer token candidates of a request: every `Authorization` value that starts with `Bearer `
 * (case-sensitive), the rest trimmed, non-empty, the first two. Several headers arrive joined by ", ";
 * a JWT never contains a comma.
 */
export function bearerCandidates(authorization: string | null | undefined): string[] {
  if (!authorization) return [];
  const out: string[] = [];
  for (const part of authorization.split(',')) {
    const value = part.trimStart();
    if (!value.startsWith('Bearer ')) continue;
    const token = value.slice(7).trim();
    if (token) out.push(token);
    if (out.length === MAX_CANDIDATES) break;
  }
  return out;
}

/** A token that verified: the signer and the identity claim's value. */
export interface VerifiedExtJwt {
  signer: SignerRow;
  claim: string;
}

/** Why a candidate failed: written to the log, never sent to the caller. */
class Refused extends Error {
  constructor(
    readonly reason: string,
    readonly signerId?: string,
  ) {
    super(reason);
  }
}

function reasonOf(e: unknown): string {
  if (e instanceof errors.JOSEError) return e.code;
  if (e instanceof JwksError) return e.message;
  return 'verification failed';
}

async function verifyOne(deps: Deps, token: string, requiredSignerId: string | undefined): Promise<VerifiedExtJwt> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  let issuer: unknown;
  try {
    header = decodeProtectedHeader(token);
    issuer = decodeJwt(token).iss;
  } catch {
    throw new Refused('not a JWT');
  }
  if (typeof header.kid !== 'string') throw new Refused('no kid in the header');
  if (!isAcceptedAlgorithm(header.alg)) throw new Refused('algorithm not accepted');
  if (typeof issuer !== 'string' || issuer === '') throw new Refused('no issuer');
  const signer = await findSignerByIssuer(deps.db, issuer);
  if (!signer) throw new Refused('unknown issuer');
  if (!signer.enabled) throw new Refused('signer disabled', signer.id);
  if (requiredSignerId !== undefined && signer.id !== requiredSignerId) throw new Refused('not the required signer', signer.id);
  // A signer without an audience can never validate a token (§8.1).
  if (signer.audience === '') throw new Refused('signer has no audience', signer.id);
  const policy = { allowPrivate: deps.config.jwksAllowPrivate, timeoutMs: deps.config.jwksTimeoutMs };
  let key: CryptoKey | undefined;
  try {
    key = await signerKey(signer, header.kid, header.alg!, policy, deps.now());
  } catch (e) {
    throw new Refused(reasonOf(e), signer.id);
  }
  if (!key) throw new Refused('no key for the kid and algorithm', signer.id);
  let payload: Record<string, unknown>;
  try {
    // exp and nbf are checked when present, without leeway; iat is not checked (§8.2).
    ({ payload } = await jwtVerify(token, key, { algorithms: [header.alg!], issuer: signer.issuer, audience: signer.audience, currentDate: new Date(deps.now()) }));
  } catch (e) {
    throw new Refused(reasonOf(e), signer.id);
  }
  const claim = payload[signer.claimsProperty || 'sub'];
  if (typeof claim !== 'string' || claim === '') throw new Refused('identity claim missing or not a string', signer.id);
  return { signer, claim };
}

/**
 * Verifies a request's bearer candidates against the external JWT signers (reference auth-and-pki §8.2
 * steps 1–5); the first that verifies wins. `requiredSignerId` restricts the signer (the secondary check).
 * Each failed candidate is logged with its reason and never with the token.
 */
export async function verifyExtJwt(deps: Deps, candidates: string[], context: { requestId: string; requiredSignerId?: string }): Promise<VerifiedExtJwt | undefined> {
  for (const token of candidates.slice(0, MAX_CANDIDATES)) {
    try {
      return await verifyOne(deps, token, context.requiredSignerId);
    } catch (e) {
      const refused = e instanceof Refused ? e : new Refused('verification failed');
      deps.log.info('external JWT refused', { requestId: context.requestId, reason: refused.reason, ...(refused.signerId ? { signerId: refused.signerId } : {}) });
    }
  }
  return undefined;
}
