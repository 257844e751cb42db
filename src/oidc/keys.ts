/**
 * The keys that sign and verify the controller's tokens (reference oidc.md §3.3, §3.4, §12.5): tokens are
 * signed with the key of the TLS server certificate, as enrollment JWTs are (ES256, `kid` = lower-case hex
 * SHA-1 of the certificate). Each instance records its key in `oidc_signing_keys` before its first token,
 * so that after a certificate renewal the previous key stays published and verifiable until every token
 * it signed has expired: instances that still sign with it, and tokens already issued, keep working.
 */
import type { Deps } from '../deps.js';
import type { Pki } from '../pki/types.js';
import { publishSigningKey, readSigningKeys, type SigningKeyRow } from './repo.js';

export const SIGNING_ALG = 'ES256';
const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
/** An unknown `kid` re-reads the published keys at most this often per instance. */
const UNKNOWN_KID_REFRESH_MS = 1_000;
/** The published set is re-read for `/oidc/keys` at most this often per instance. */
const JWKS_REFRESH_MS = 60_000;

export interface PublicJwk {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  kid: string;
  alg: string;
  use: 'sig';
}

interface OwnKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: PublicJwk;
  notAfter: number;
  /** Settles once the key is recorded in the store (awaited before the first token is signed). */
  published?: Promise<void>;
}

interface KeyRing {
  own: Promise<OwnKey>;
  /** Verification keys by kid (the own key included). */
  known: Map<string, Promise<CryptoKey | undefined>>;
  published: SigningKeyRow[];
  readAt: number;
  reading?: Promise<void>;
}

const rings = new WeakMap<Pki, KeyRing>();

async function ownKey(pki: Pki): Promise<OwnKey> {
  const publicKey = (await pki.server.cert.publicKey.export(EC_P256, ['verify'])) as CryptoKey;
  const raw = (await crypto.subtle.exportKey('jwk', publicKey)) as JsonWebKey;
  const kid = pki.serverFingerprint;
  return {
    kid,
    privateKey: pki.server.key,
    publicKey,
    jwk: { kty: raw.kty!, crv: raw.crv, x: raw.x, y: raw.y, kid, alg: SIGNING_ALG, use: 'sig' },
    notAfter: pki.server.cert.notAfter.getTime(),
  };
}

function ring(pki: Pki): KeyRing {
  let r = rings.get(pki);
  if (!r) {
    const own = ownKey(pki);
    r = { own, known: new Map([[pki.serverFingerprint, own.then((k) => k.publicKey)]]), published: [], readAt: Number.NEGATIVE_INFINITY };
    rings.set(pki, r);
  }
  return r;
}

/** The key this instance signs with, recorded in the store first (once per instance). */
export async function signingKey(deps: Deps): Promise<OwnKey> {
  const key = await ring(deps.pki).own;
  key.published ??= publishSigningKey(deps.primaryDb ?? deps.db, { kid: key.kid, alg: SIGNING_ALG, jwk: JSON.stringify(key.jwk), notAfter: key.notAfter, createdAt: deps.now() }).catch((e) => {
    key.published = undefined;
    throw e;
  });
  await key.published;
  return key;
}

async function readPublished(deps: Deps, r: KeyRing): Promise<void> {
  r.reading ??= readSigningKeys(deps.primaryDb ?? deps.db)
    .then((rows) => {
      r.published = rows;
      r.readAt = deps.now();
      for (const row of rows) {
        if (!r.known.has(row.kid)) r.known.set(row.kid, importJwk(row.jwk));
      }
    })
    .finally(() => {
      r.reading = undefined;
    });
  await r.reading;
}

async function importJwk(json: string): Promise<CryptoKey | undefined> {
  try {
    const jwk = JSON.parse(json) as JsonWebKey;
    if (jwk.kty !== 'EC' || jwk.crv !== 'P-256') return undefined;
    return await crypto.subtle.importKey('jwk', { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, EC_P256, false, ['verify']);
  } catch {
    return undefined;
  }
}

/**
 * The public key a token names by `kid`: this instance's own, or one another instance (or an earlier
 * certificate) published; an unknown kid re-reads the published keys, at most once a second.
 */
export async function verificationKey(deps: Deps, kid: string): Promise<CryptoKey | undefined> {
  const r = ring(deps.pki);
  const hit = r.known.get(kid);
  if (hit) return hit;
  if (deps.now() - r.readAt < UNKNOWN_KID_REFRESH_MS) return undefined;
  await readPublished(deps, r);
  return r.known.get(kid);
}

/**
 * `/oidc/keys`: this instance's key and every published key whose certificate has not expired, or expired
 * less than the longest token lifetime ago.
 */
export async function publishedJwks(deps: Deps): Promise<{ keys: PublicJwk[] }> {
  const r = ring(deps.pki);
  const own = await signingKey(deps);
  if (deps.now() - r.readAt >= JWKS_REFRESH_MS) await readPublished(deps, r);
  const { accessTokenSeconds, idTokenSeconds, refreshTokenSeconds } = deps.config.oidc;
  const horizon = deps.now() - Math.max(accessTokenSeconds, idTokenSeconds, refreshTokenSeconds) * 1000;
  const keys: PublicJwk[] = [own.jwk];
  for (const row of r.published) {
    if (row.kid === own.kid || row.notAfter < horizon) continue;
    try {
      const jwk = JSON.parse(row.jwk) as PublicJwk;
      keys.push({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid: row.kid, alg: row.alg, use: 'sig' });
    } catch {
      // an unreadable row is left out
    }
  }
  return { keys };
}
