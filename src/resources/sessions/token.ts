/**
 * Session tokens are derived, not stored: HMAC-SHA256 of the session id under a key derived (HKDF) from
 * CONTROLLER_SECRET with its own label, shaped as a UUID v4. A re-create on the same API session and any
 * later read give the same token, and the store holds nothing that would let a copy of it use a session.
 *
 * The tokens of recent sessions are kept per process (bounded), so an SDK's re-create on every dial
 * costs no HMAC; like the session-token hashes (src/auth/session-token.ts), in memory only.
 */
import { constantTimeEqual } from '../../auth/password.js';
import { toHex } from '../../lib/encoding.js';
import { secretKey } from '../../lib/secret-keys.js';

const LABEL = 'ziti-edge-controller/session-token/v1';
const CACHE_MAX = 10_000;

/** Per secret: the key once derived (so signing starts at once), and recent session ids' tokens. */
interface PerSecret {
  key?: CryptoKey;
  keyPromise: Promise<CryptoKey>;
  recent: Map<string, string>;
}
const perSecret = new Map<string, PerSecret>();
const encoder = new TextEncoder();

function forSecret(secret: string): PerSecret {
  let s = perSecret.get(secret);
  if (!s) {
    const created: PerSecret = { keyPromise: secretKey(secret, LABEL, { name: 'HMAC', hash: 'SHA-256', length: 256 }, ['sign']), recent: new Map() };
    created.keyPromise.then((key) => (created.key = key), () => perSecret.delete(secret));
    perSecret.set(secret, (s = created));
  }
  return s;
}

function shape(mac: ArrayBuffer): string {
  const b = new Uint8Array(mac, 0, 16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = toHex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The session's token. Once the key is derived, the HMAC is started before this returns. */
export function sessionToken(secret: string, sessionId: string): Promise<string> {
  const s = forSecret(secret);
  const known = s.recent.get(sessionId);
  if (known !== undefined) return Promise.resolve(known);
  const data = encoder.encode(sessionId);
  const mac = s.key ? crypto.subtle.sign('HMAC', s.key, data) : s.keyPromise.then((key) => crypto.subtle.sign('HMAC', key, data));
  return mac.then((m) => {
    const token = shape(m);
    if (s.recent.size >= CACHE_MAX) s.recent.delete(s.recent.keys().next().value as string);
    s.recent.set(sessionId, token);
    return token;
  });
}

/** Constant-time comparison of a presented token with the session's. */
export async function isSessionToken(secret: string, sessionId: string, presented: string): Promise<boolean> {
  return constantTimeEqual(encoder.encode(await sessionToken(secret, sessionId)), encoder.encode(presented));
}
