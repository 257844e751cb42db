/**
 * Verification of the controller's own tokens (reference oidc.md §7.1, §12.4): the signature under a
 * recorded controller key named by `kid` (ES256 server keys; RS256 for ID tokens), `exp`/`nbf` against the app's clock, the token
 * type `z_t`, the audience (`openziti` or `native`) and the issuer (any of the controller's host names).
 * Unlike the controller's REST path, audience, issuer and revocations are checked too (ADR 0013).
 *
 * A verified access token is remembered per instance (its claims, keyed by the exact token string), so a
 * token presented again costs a map lookup and the deny-list check instead of an ECDSA verification.
 */
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { Deps } from '../deps.js';
import { acceptedIssuer, CLIENT_IDS } from './clients.js';
import { ID_TOKEN_ALG, SIGNING_ALG, verificationKey } from './keys.js';
import { ACCESS_TOKEN_TYPE, type AccessClaims } from './tokens.js';

/** Tokens longer than this are not tokens of this controller: refused before any parsing. */
const MAX_TOKEN_LENGTH = 8 * 1024;
/** Verified access tokens remembered per instance. */
const CACHE_LIMIT = 10_000;

/**
 * Verifies a JWT this controller signed, with its clock; the claims, or undefined for anything else
 * (another key, a bad signature, expired, not yet valid, not a JWT). `exp` is required.
 */
export async function verifyControllerJwt(deps: Deps, token: string): Promise<JWTPayload | undefined> {
  if (token.length > MAX_TOKEN_LENGTH || token.split('.').length !== 3) return undefined;
  try {
    const header = decodeProtectedHeader(token);
    if ((header.alg !== SIGNING_ALG && header.alg !== ID_TOKEN_ALG) || typeof header.kid !== 'string') return undefined;
    const key = await verificationKey(deps, header.kid);
    if (!key) return undefined;
    // The key's own type must fit the algorithm (jose refuses an RSA key for ES256 and the reverse).
    const { payload } = await jwtVerify(token, key, { algorithms: [header.alg], currentDate: new Date(deps.now()), requiredClaims: ['exp'] });
    return payload;
  } catch {
    return undefined;
  }
}

/** The audience of every token a controller client holds. */
export function audienceAccepted(aud: unknown): boolean {
  const list = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  return list.some((a) => (CLIENT_IDS as readonly unknown[]).includes(a));
}

const verified = new WeakMap<Deps, Map<string, AccessClaims>>();

function cacheOf(deps: Deps): Map<string, AccessClaims> {
  let c = verified.get(deps);
  if (!c) verified.set(deps, (c = new Map()));
  return c;
}

function shapeOk(p: JWTPayload): p is JWTPayload & AccessClaims {
  return p.z_t === ACCESS_TOKEN_TYPE && typeof p.sub === 'string' && p.sub !== '' && typeof p.iat === 'number' && typeof p.z_asid === 'string' && p.z_asid !== '';
}

/**
 * An access token's claims when it verifies (signature, times, `z_t: "a"`, audience, issuer); undefined
 * otherwise. Revocation is the caller's next check (src/oidc/revocations.ts).
 */
export async function verifyAccessToken(deps: Deps, token: string): Promise<AccessClaims | undefined> {
  const nowSeconds = deps.now() / 1000;
  const cache = cacheOf(deps);
  const hit = cache.get(token);
  if (hit) {
    if (hit.exp > nowSeconds && (hit.nbf === undefined || hit.nbf <= nowSeconds)) return hit;
    cache.delete(token);
    return undefined;
  }
  const payload = await verifyControllerJwt(deps, token);
  if (!payload || !shapeOk(payload) || !audienceAccepted(payload.aud) || !acceptedIssuer(deps.config, payload.iss)) return undefined;
  if (cache.size >= CACHE_LIMIT) {
    // Drop the oldest entries (insertion order), a tenth at a time.
    let n = CACHE_LIMIT / 10;
    for (const key of cache.keys()) {
      cache.delete(key);
      if (--n <= 0) break;
    }
  }
  cache.set(token, payload);
  return payload;
}
