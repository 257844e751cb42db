import { importJWK, importX509, type JWK } from 'jose';
import { wrap64 } from '../../lib/encoding.js';
import { fetchJwks, JwksError, type JwksFetchPolicy } from './jwks.js';

/** The signer columns key resolution needs. */
export interface SignerKeySource {
  id: string;
  updatedAt: number;
  certPem: string | null;
  jwksEndpoint: string | null;
  kid: string | null;
  fingerprint: string | null;
}

/** Asymmetric JWS algorithms only: `none` and HMAC can never verify against a provider's public key. */
const ALGORITHMS: Record<string, (jwk: JWK) => boolean> = {
  RS256: (k) => k.kty === 'RSA',
  RS384: (k) => k.kty === 'RSA',
  RS512: (k) => k.kty === 'RSA',
  PS256: (k) => k.kty === 'RSA',
  PS384: (k) => k.kty === 'RSA',
  PS512: (k) => k.kty === 'RSA',
  ES256: (k) => k.kty === 'EC' && k.crv === 'P-256',
  ES384: (k) => k.kty === 'EC' && k.crv === 'P-384',
  ES512: (k) => k.kty === 'EC' && k.crv === 'P-521',
  EdDSA: (k) => k.kty === 'OKP' && k.crv === 'Ed25519',
  Ed25519: (k) => k.kty === 'OKP' && k.crv === 'Ed25519',
};

export function isAcceptedAlgorithm(alg: unknown): alg is string {
  return typeof alg === 'string' && Object.hasOwn(ALGORITHMS, alg);
}

/** At most one JWKS refetch per signer per second when a token names an unknown kid (reference §8.2). */
export const REFETCH_INTERVAL_MS = 1000;
/** Signers whose keys one process or isolate remembers; the oldest is forgotten first. */
const MAX_SIGNERS = 1000;

interface SignerKeys {
  /** What the entry was built from: a changed signer starts afresh. */
  version: string;
  jwks: Map<string, JWK>;
  /** Last fetch attempt (successful or not), for the refetch throttle. */
  attemptedAt: number;
  inflight?: Promise<void>;
  /** Imported keys by `kid alg`: importing costs more than verifying. */
  imported: Map<string, Promise<CryptoKey | undefined>>;
}

/** Per process (Node) or isolate (Workers): survives between requests, never shared between instances. */
const cache = new Map<string, SignerKeys>();

function entryFor(signer: SignerKeySource): SignerKeys {
  const version = `${signer.updatedAt}|${signer.jwksEndpoint ?? ''}|${signer.fingerprint ?? ''}`;
  let entry = cache.get(signer.id);
  if (!entry || entry.version !== version) {
    entry = { version, jwks: new Map(), attemptedAt: Number.NEGATIVE_INFINITY, imported: new Map() };
    cache.delete(signer.id);
    if (cache.size >= MAX_SIGNERS) cache.delete(cache.keys().next().value!);
    cache.set(signer.id, entry);
  }
  return entry;
}

async function refresh(entry: SignerKeys, endpoint: string, policy: JwksFetchPolicy, now: number): Promise<void> {
  if (entry.inflight) return entry.inflight;
  if (now - entry.attemptedAt < REFETCH_INTERVAL_MS) return;
  entry.attemptedAt = now;
  entry.inflight = (async () => {
    try {
      const keys = await fetchJwks(endpoint, policy);
      entry.jwks = new Map(keys.map((k) => [k.kid!, k]));
      entry.imported = new Map();
    } finally {
      entry.inflight = undefined;
    }
  })();
  return entry.inflight;
}

function pemOf(der: string): string {
  return `-----BEGIN CERTIFICATE-----\n${wrap64(der)}\n-----END CERTIFICATE-----`;
}

/** A JWK's verification key for `alg`: the first x5c certificate's key when present, else the JWK itself. */
async function importJwkFor(jwk: JWK, alg: string): Promise<CryptoKey | undefined> {
  if (jwk.alg !== undefined && jwk.alg !== alg) return undefined;
  if (jwk.use !== undefined && jwk.use !== 'sig') return undefined;
  // Providers often publish only kid and x5c; the certificate's key then decides, and importing it for
  // an algorithm of another key type or curve fails.
  if (Array.isArray(jwk.x5c) && jwk.x5c.length > 0) {
    return importX509(pemOf(String(jwk.x5c[0]).replace(/\s+/g, '')), alg);
  }
  if (!ALGORITHMS[alg](jwk)) return undefined;
  const { x5c: _x5c, ...params } = jwk;
  return (await importJWK({ ...params, ext: true }, alg)) as CryptoKey;
}

function imported(entry: SignerKeys, key: string, load: () => Promise<CryptoKey | undefined>): Promise<CryptoKey | undefined> {
  let found = entry.imported.get(key);
  if (!found) {
    found = load().catch(() => undefined);
    entry.imported.set(key, found);
  }
  return found;
}

/**
 * The key that verifies a token of `signer` with header `kid` and `alg`, or undefined (unknown kid, or a
 * key of another type than the algorithm needs). A certificate signer has one key, registered under its
 * kid or, without one, under the certificate's SHA-1 fingerprint. A JWKS signer's keys are fetched on
 * first use and again on an unknown kid, at most once a second.
 */
export async function signerKey(signer: SignerKeySource, kid: string, alg: string, policy: JwksFetchPolicy, now: number): Promise<CryptoKey | undefined> {
  const entry = entryFor(signer);
  if (signer.certPem) {
    if (kid !== (signer.kid ?? signer.fingerprint)) return undefined;
    const pem = signer.certPem;
    return imported(entry, `${kid} ${alg}`, () => importX509(pem, alg) as Promise<CryptoKey>);
  }
  if (!signer.jwksEndpoint) return undefined;
  if (!entry.jwks.has(kid)) {
    try {
      await refresh(entry, signer.jwksEndpoint, policy, now);
    } catch (e) {
      throw e instanceof JwksError ? e : new JwksError('JWKS could not be used');
    }
  }
  const jwk = entry.jwks.get(kid);
  if (!jwk) return undefined;
  return imported(entry, `${kid} ${alg}`, () => importJwkFor(jwk, alg));
}
