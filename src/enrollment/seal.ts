import { fromBase64, sha256Hex, toBase64 } from '../lib/encoding.js';
import { secretKey } from '../lib/secret-keys.js';

/**
 * Sealing of enrollment JWTs at rest: AES-GCM-256 under a key derived (HKDF-SHA256) from
 * CONTROLLER_SECRET with its own label, so it is independent of the PKI key-encryption key.
 * Format `s1.<iv b64>.<ciphertext b64>`.
 */
const sealingKey = (secret: string) => secretKey(secret, 'ziti-edge-controller/enrollment-jwt/v1', { name: 'AES-GCM', length: 256 }, ['encrypt', 'decrypt']);

export async function seal(secret: string, text: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await sealingKey(secret), new TextEncoder().encode(text));
  return `s1.${toBase64(iv)}.${toBase64(ct)}`;
}

/** The sealed text, or '' when it cannot be opened (another secret): a listing must not fail on one row. */
export async function unseal(secret: string, sealed: string): Promise<string> {
  const [version, iv, ct] = sealed.split('.');
  if (version !== 's1' || !iv || !ct) return '';
  try {
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64(iv) as BufferSource }, await sealingKey(secret), fromBase64(ct) as BufferSource);
    return new TextDecoder().decode(plain);
  } catch {
    return '';
  }
}

/** How a token is stored and looked up: lower-case hex SHA-256 of its text. */
export function tokenHash(token: string): Promise<string> {
  return sha256Hex(new TextEncoder().encode(token));
}

/** The `jti` claim of a JWT we signed ourselves (no verification: the JWT came from our own store). */
export function jtiOf(jwt: string): string {
  try {
    const payload = JSON.parse(new TextDecoder().decode(fromBase64(jwt.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))));
    return typeof payload.jti === 'string' ? payload.jti : '';
  } catch {
    return '';
  }
}
