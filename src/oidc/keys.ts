/**
 * The keys that sign and verify the controller's tokens (reference oidc.md §3.3, §3.4, §12.5; ADR 0013):
 *
 * - access, refresh and service tokens are signed with the key of the TLS server certificate, as enrollment
 *   JWTs are (ES256, `kid` = lower-case hex SHA-1 of the certificate). Each instance records its public key
 *   in `oidc_signing_keys` before its first token, so that after a certificate renewal the previous key
 *   stays published and verifiable until every token it signed has expired;
 * - ID tokens are signed RS256 with an RSA key certified by the controller's signer (`kid` = SHA-1 of that
 *   certificate): relying parties built on the Go OIDC library the SDKs use accept only RS256 ID tokens.
 *   One such key is shared by every instance (private key encrypted in the store), and replaced 30 days
 *   before its certificate expires; the old one stays published.
 */
import type { Deps } from '../deps.js';
import { sha1Hex } from '../lib/encoding.js';
import { decrypt, deriveStorageKey, encrypt } from '../pki/secrets.js';
import { randomSerial } from '../pki/serial.js';
import type { Pki } from '../pki/types.js';
import { x509 } from '../pki/x509.js';
import { publishSigningKey, readIdTokenKeys, readSigningKeys, type SigningKeyRow } from './repo.js';

export const SIGNING_ALG = 'ES256';
export const ID_TOKEN_ALG = 'RS256';
const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const RSA_SHA256 = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;
/** An unknown `kid` re-reads the published keys at most this often per instance. */
const UNKNOWN_KID_REFRESH_MS = 1_000;
/** The published set is re-read for `/oidc/keys` at most this often per instance. */
const JWKS_REFRESH_MS = 60_000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** The ID-token key is replaced this long before its certificate expires; a new one lives a year. */
const ID_KEY_RENEW_BEFORE_MS = 30 * DAY_MS;
const ID_KEY_LIFETIME_MS = 365 * DAY_MS;

export interface PublicJwk {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
  kid: string;
  alg: string;
  use: 'sig';
}

interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: PublicJwk;
  notAfter: number;
}

interface OwnKey extends SigningKey {
  publicKey: CryptoKey;
  /** Settles once the key is recorded in the store (awaited before the first token is signed). */
  published?: Promise<void>;
}

interface KeyRing {
  own: Promise<OwnKey>;
  idKey?: Promise<SigningKey>;
  /** Verification keys by kid (the own key included). */
  known: Map<string, Promise<CryptoKey | undefined>>;
  published: Omit<SigningKeyRow, 'encryptedKey'>[];
  readAt: number;
  reading?: Promise<void>;
}

const rings = new WeakMap<Pki, KeyRing>();

function publicJwk(raw: JsonWebKey, kid: string, alg: string): PublicJwk {
  return raw.kty === 'RSA' ? { kty: 'RSA', n: raw.n, e: raw.e, kid, alg, use: 'sig' } : { kty: raw.kty!, crv: raw.crv, x: raw.x, y: raw.y, kid, alg, use: 'sig' };
}

async function ownKey(pki: Pki): Promise<OwnKey> {
  const publicKey = (await pki.server.cert.publicKey.export(EC_P256, ['verify'])) as CryptoKey;
  const kid = pki.serverFingerprint;
  return {
    kid,
    alg: SIGNING_ALG,
    privateKey: pki.server.key,
    publicKey,
    jwk: publicJwk((await crypto.subtle.exportKey('jwk', publicKey)) as JsonWebKey, kid, SIGNING_ALG),
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

/** The key this instance signs access, refresh and service tokens with, recorded in the store first. */
export async function signingKey(deps: Deps): Promise<SigningKey> {
  const key = await ring(deps.pki).own;
  key.published ??= publishSigningKey(deps.primaryDb ?? deps.db, { kid: key.kid, use: 'server', alg: SIGNING_ALG, jwk: JSON.stringify(key.jwk), encryptedKey: null, notAfter: key.notAfter, createdAt: deps.now() }).catch((e) => {
    key.published = undefined;
    throw e;
  });
  await key.published;
  return key;
}

/** A new RSA key with a certificate from the controller's signer, as a row to record. */
async function newIdTokenKey(deps: Deps): Promise<SigningKeyRow> {
  const keys = (await crypto.subtle.generateKey({ ...RSA_SHA256, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = deps.now();
  const { signer } = deps.pki;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: 'CN=Ziti Edge Controller ID token signer, O=OpenZiti-compatible controller',
    issuer: signer.cert.subject,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(Math.min(now + ID_KEY_LIFETIME_MS, signer.cert.notAfter.getTime())),
    publicKey: keys.publicKey,
    signingKey: signer.key,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: [new x509.BasicConstraintsExtension(false, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
  });
  const kid = await sha1Hex(cert.rawData);
  const pkcs8 = new Uint8Array((await crypto.subtle.exportKey('pkcs8', keys.privateKey)) as ArrayBuffer);
  return {
    kid,
    use: 'id-token',
    alg: ID_TOKEN_ALG,
    jwk: JSON.stringify(publicJwk((await crypto.subtle.exportKey('jwk', keys.publicKey)) as JsonWebKey, kid, ID_TOKEN_ALG)),
    encryptedKey: await encrypt(await deriveStorageKey(deps.config.controllerSecret), pkcs8),
    notAfter: cert.notAfter.getTime(),
    createdAt: now,
  };
}

/**
 * The ID-token key in force: the longest-lived recorded one not due for replacement, or a new one. Two
 * instances creating one at once both record theirs and then both use the longest-lived (either verifies).
 */
async function loadIdTokenKey(deps: Deps): Promise<SigningKey> {
  const db = deps.primaryDb ?? deps.db;
  const usable = (rows: SigningKeyRow[]) => rows.find((r) => r.encryptedKey && r.notAfter - deps.now() > ID_KEY_RENEW_BEFORE_MS);
  let row = usable(await readIdTokenKeys(db));
  if (!row) {
    await publishSigningKey(db, await newIdTokenKey(deps));
    row = usable(await readIdTokenKeys(db));
    if (!row) throw new Error('no usable ID-token signing key after creating one');
  }
  const pkcs8 = await decrypt(await deriveStorageKey(deps.config.controllerSecret), row.encryptedKey!);
  const privateKey = await crypto.subtle.importKey('pkcs8', pkcs8 as BufferSource, RSA_SHA256, false, ['sign']);
  return { kid: row.kid, alg: ID_TOKEN_ALG, privateKey, jwk: JSON.parse(row.jwk) as PublicJwk, notAfter: row.notAfter };
}

/** The key ID tokens are signed with (RS256), loaded or created once per instance and renewed in time. */
export async function idTokenKey(deps: Deps): Promise<SigningKey> {
  const r = ring(deps.pki);
  const loading = r.idKey;
  if (loading) {
    const key = await loading.catch(() => undefined);
    if (key && key.notAfter - deps.now() > ID_KEY_RENEW_BEFORE_MS) return key;
    // Failed, or due for replacement: load again (callers arriving meanwhile share the new load).
    if (r.idKey === loading) r.idKey = undefined;
  }
  const next = (r.idKey ??= loadIdTokenKey(deps).then((key) => {
    r.known.set(key.kid, importJwk(JSON.stringify(key.jwk)));
    return key;
  }));
  try {
    return await next;
  } catch (e) {
    if (r.idKey === next) r.idKey = undefined;
    throw e;
  }
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
    if (jwk.kty === 'EC' && jwk.crv === 'P-256') return await crypto.subtle.importKey('jwk', { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, EC_P256, false, ['verify']);
    if (jwk.kty === 'RSA') return await crypto.subtle.importKey('jwk', { kty: jwk.kty, n: jwk.n, e: jwk.e }, RSA_SHA256, false, ['verify']);
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * The public key a token names by `kid`: this instance's own, or one recorded by another instance, an
 * earlier certificate or as an ID-token key; an unknown kid re-reads the recorded keys, at most once a second.
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
 * `/oidc/keys`: this instance's key, the ID-token key and every recorded key whose certificate has not
 * expired, or expired less than the longest token lifetime ago.
 */
export async function publishedJwks(deps: Deps): Promise<{ keys: PublicJwk[] }> {
  const r = ring(deps.pki);
  const own = await signingKey(deps);
  const id = await idTokenKey(deps);
  if (deps.now() - r.readAt >= JWKS_REFRESH_MS) await readPublished(deps, r);
  const { accessTokenSeconds, idTokenSeconds, refreshTokenSeconds } = deps.config.oidc;
  const horizon = deps.now() - Math.max(accessTokenSeconds, idTokenSeconds, refreshTokenSeconds) * 1000;
  const keys: PublicJwk[] = [own.jwk, id.jwk];
  for (const row of r.published) {
    if (row.kid === own.kid || row.kid === id.kid || row.notAfter < horizon) continue;
    try {
      const jwk = JSON.parse(row.jwk) as PublicJwk;
      keys.push(publicJwk(jwk as JsonWebKey, row.kid, row.alg));
    } catch {
      // an unreadable row is left out
    }
  }
  return { keys };
}
