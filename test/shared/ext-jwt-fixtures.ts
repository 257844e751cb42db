import { exportJWK, SignJWT, type JWK } from 'jose';
import { x509 } from '../../src/pki/x509.js';

/** A real key pair of an identity provider, with its public JWK and a self-signed certificate. */
export interface ProviderKey {
  alg: 'RS256' | 'ES256' | 'EdDSA';
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
  certPem: string;
}

const PARAMS = {
  RS256: { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
  ES256: { name: 'ECDSA', namedCurve: 'P-256' },
  EdDSA: { name: 'Ed25519' },
} as const;
const CERT_SIGNING = { RS256: PARAMS.RS256, ES256: { name: 'ECDSA', hash: 'SHA-256' }, EdDSA: { name: 'Ed25519' } } as const;

export async function providerKey(alg: ProviderKey['alg'], kid = `kid-${crypto.randomUUID()}`): Promise<ProviderKey> {
  const keys = (await crypto.subtle.generateKey(PARAMS[alg] as never, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=idp-${kid}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 86_400_000),
    keys,
    signingAlgorithm: CERT_SIGNING[alg] as never,
  });
  const jwk = { ...(await exportJWK(keys.publicKey)), kid, alg, use: 'sig' };
  return { alg, kid, privateKey: keys.privateKey, jwk, certPem: cert.toString('pem') };
}

export function jwksBody(...keys: (ProviderKey | JWK)[]): string {
  return JSON.stringify({ keys: keys.map((k) => ('jwk' in k ? k.jwk : k)) });
}

/** A JWT signed by the provider key; `claims` may override anything, `header` adds to the header. */
export async function signToken(key: ProviderKey, claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iat: now, exp: now + 300, ...claims }).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header }).sign(key.privateKey);
}

/** An unsigned token (`alg: none`). */
export function unsignedToken(header: Record<string, unknown>, claims: Record<string, unknown>): string {
  const b64 = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${b64({ alg: 'none', ...header })}.${b64(claims)}.`;
}

/** An HMAC-signed token whose secret is the given text (an attacker's classic: the public key as the secret). */
export async function hmacToken(secret: string, header: Record<string, unknown>, claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', ...header }).sign(new TextEncoder().encode(secret));
}
