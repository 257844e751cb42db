/** Id generators. Ids are opaque to clients; the shapes follow the controller's so they look familiar. */

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes drawn from a pool refilled from the CSPRNG 1 KiB at a time: one `getRandomValues` per
 * ~60 ids instead of one per id (it was ~5 % of a session check, as every request gets an id). Each
 * byte is used once. Filled on first use, never at module scope (Workers forbid randomness there).
 */
const POOL_SIZE = 1024;
let pool: Uint8Array | undefined;
let poolAt = POOL_SIZE;

function randomByte(): number {
  if (poolAt === POOL_SIZE) {
    pool = crypto.getRandomValues(pool ?? new Uint8Array(POOL_SIZE));
    poolAt = 0;
  }
  return pool![poolAt++];
}

function randomString(length: number, alphabet: string): string {
  // Rejection sampling keeps the distribution uniform for any alphabet size.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < limit) out += alphabet[b % alphabet.length];
  }
  return out;
}

/** Short ids for identities, routers, enrollments, authenticators, CAs and request ids (10 chars). */
export function shortId(): string {
  return randomString(10, BASE62);
}

/** 22-char base62 ids for services, configs, policies and other model entities (~131 bits). */
export function entityId(): string {
  return randomString(22, BASE62);
}

/** CUID-shaped ids (25 chars, leading `c`, lower-case base36) for API sessions and sessions. */
export function cuid(): string {
  return 'c' + Date.now().toString(36).padStart(9, '0').slice(-9) + randomString(15, '0123456789abcdefghijklmnopqrstuvwxyz');
}

/** Random UUID v4 for tokens (API session, session and enrollment tokens). */
export function uuid(): string {
  return crypto.randomUUID();
}

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
