import { fromBase64, toBase64 } from '../lib/encoding.js';
import { secretKey } from '../lib/secret-keys.js';

/**
 * Key material at rest: AES-GCM-256 under a key derived (HKDF-SHA256) from CONTROLLER_SECRET.
 * Text format `v1.<iv b64>.<ciphertext b64>` so the scheme can change later.
 */
export function deriveStorageKey(secret: string): Promise<CryptoKey> {
  return secretKey(secret, 'ziti-edge-controller/pki-key-encryption/v1', { name: 'AES-GCM', length: 256 }, ['encrypt', 'decrypt']);
}

export async function encrypt(key: CryptoKey, plaintext: Uint8Array): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, plaintext as BufferSource);
  return `v1.${toBase64(iv)}.${toBase64(ct)}`;
}

export class WrongSecretError extends Error {}

export async function decrypt(key: CryptoKey, text: string): Promise<Uint8Array> {
  const [version, iv, ct] = text.split('.');
  if (version !== 'v1' || !iv || !ct) throw new WrongSecretError('stored key material has an unknown format');
  try {
    return new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64(iv) as BufferSource }, key, fromBase64(ct) as BufferSource));
  } catch {
    throw new WrongSecretError('CONTROLLER_SECRET does not decrypt the stored PKI: it is not the secret this database was created with');
  }
}
