/**
 * Session tokens are derived, not stored: HMAC-SHA256 of the session id under a key derived (HKDF) from
 * CONTROLLER_SECRET with its own label, shaped as a UUID v4. A re-create on the same API session and any
 * later read give the same token, and the store holds nothing that would let a copy of it use a session.
 */
import { constantTimeEqual } from '../../auth/password.js';
import { toHex } from '../../lib/encoding.js';
import { secretKey } from '../../lib/secret-keys.js';

const tokenKey = (secret: string) => secretKey(secret, 'ziti-edge-controller/session-token/v1', { name: 'HMAC', hash: 'SHA-256', length: 256 }, ['sign']);

export async function sessionToken(secret: string, sessionId: string): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await tokenKey(secret), new TextEncoder().encode(sessionId)));
  const b = mac.slice(0, 16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = toHex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Constant-time comparison of a presented token with the session's. */
export async function isSessionToken(secret: string, sessionId: string, presented: string): Promise<boolean> {
  const encode = (text: string) => new TextEncoder().encode(text);
  return constantTimeEqual(encode(await sessionToken(secret, sessionId)), encode(presented));
}
