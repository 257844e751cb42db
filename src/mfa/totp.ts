/**
 * TOTP (RFC 6238 over RFC 4226 HOTP) as authenticator apps implement it, on WebCrypto only (reference
 * auth-and-pki §4.2–§4.3): HMAC-SHA1, 6 digits, 30-second steps from the Unix epoch, a secret of 10
 * random bytes in upper-case Base32 without padding, codes accepted within ±2 steps.
 */

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const STEP_SECONDS = 30;
const WINDOW = 2;
const DIGITS = 6;
const RECOVERY_CODE_COUNT = 20;

/** RFC 4648 Base32, upper case, no padding. */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function base32Decode(text: string): Uint8Array {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of text.replace(/=+$/, '').toUpperCase()) {
    const i = BASE32.indexOf(ch);
    if (i < 0) throw new Error('invalid base32');
    value = ((value << 5) | i) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

/** A fresh TOTP secret: 10 random bytes, 16 Base32 characters. */
export function newTotpSecret(): string {
  return base32Encode(crypto.getRandomValues(new Uint8Array(10)));
}

/** 20 recovery codes of 6 Base32 characters, each from 8 random bytes (§4.3). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => base32Encode(crypto.getRandomValues(new Uint8Array(8))).slice(0, 6));
}

/** The authenticator-app URL (§4.2): label as is, query keys sorted, values encoded. */
export function provisioningUrl(issuer: string, accountName: string, secret: string): string {
  return `otpauth://totp/${issuer}:${accountName}?issuer=${encodeURIComponent(issuer)}&secret=${encodeURIComponent(secret)}`;
}

/** The time step a moment (Unix ms) falls in. */
function stepAt(nowMs: number): number {
  return Math.floor(nowMs / 1000 / STEP_SECONDS);
}

async function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', base32Decode(secret) as BufferSource, { name: 'HMAC', hash: 'SHA-1' }, false, ['sign']);
}

async function hotp(key: CryptoKey, counter: number): Promise<string> {
  const msg = new Uint8Array(8);
  // Counters stay far below 2^53; split into two 32-bit halves for DataView.
  const view = new DataView(msg.buffer);
  view.setUint32(0, Math.floor(counter / 2 ** 32));
  view.setUint32(4, counter >>> 0);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, msg));
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) | mac[offset + 3];
  return String(binary % 10 ** DIGITS).padStart(DIGITS, '0');
}

/** Compares two strings in time independent of where they differ (length is not secret here). */
function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** Only 6 decimal digits can be a TOTP code (§4.3); anything else is simply invalid. */
function looksLikeTotp(code: string): boolean {
  return /^[0-9]{6}$/.test(code);
}

/**
 * The step whose code matches, searching current ±2 steps, or undefined. Every step of the window is
 * computed and compared, so the time taken does not reveal which one matched.
 */
export async function matchTotp(secret: string, code: string, nowMs: number): Promise<number | undefined> {
  if (!looksLikeTotp(code)) return undefined;
  const key = await hmacKey(secret);
  const current = stepAt(nowMs);
  let matched: number | undefined;
  for (let step = current - WINDOW; step <= current + WINDOW; step++) {
    if (constantTimeEqual(await hotp(key, step), code) && matched === undefined) matched = step;
  }
  return matched;
}

/** The index of a matching recovery code (exact, case-sensitive), comparing against all of them. */
export function matchRecoveryCode(codes: readonly string[], code: string): number {
  let found = -1;
  codes.forEach((c, i) => {
    if (constantTimeEqual(c, code) && found < 0) found = i;
  });
  return found;
}
