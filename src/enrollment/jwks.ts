import type { Deps } from '../deps.js';
import { fieldError } from '../errors.js';
import { toBase64 } from '../lib/encoding.js';

function base64url(bytes: ArrayBuffer): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * `GET /enroll/jwks` (reference §5.10, which the controller leaves unimplemented): the public key that
 * signs enrollment JWTs, `kid` = SHA-1 of the server certificate, with its chain in `x5c`.
 */
export async function enrollmentJwks(deps: Deps) {
  const { server, signer } = deps.pki;
  const jwk = (await crypto.subtle.exportKey('jwk', await server.cert.publicKey.export())) as JsonWebKey;
  return {
    keys: [
      {
        kty: jwk.kty!,
        crv: jwk.crv,
        x: jwk.x,
        y: jwk.y,
        kid: deps.pki.serverFingerprint,
        alg: 'ES256',
        use: 'sig',
        x5c: [toBase64(server.cert.rawData), toBase64(signer.cert.rawData)],
      },
    ],
  };
}

const MAX_NONCE = 1024;

/**
 * `POST /enroll/challenge` (§5.10): proves this controller holds the key named by `keyId` by signing the
 * client's nonce (its UTF-8 bytes) with it: ES256, the signature in the JOSE form (r‖s), base64url.
 */
export async function enrollmentChallenge(deps: Deps, nonce: string, keyId: string) {
  if (nonce.length === 0 || nonce.length > MAX_NONCE) throw fieldError('nonce', `nonce must be 1 to ${MAX_NONCE} characters`, nonce.slice(0, 64));
  if (keyId !== deps.pki.serverFingerprint) throw fieldError('keyId', 'unknown key id', keyId);
  const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, deps.pki.server.key, new TextEncoder().encode(nonce));
  return { kid: keyId, algorithm: 'ES256', signature: base64url(signature), caPool: deps.pki.trustBundlePem() };
}
