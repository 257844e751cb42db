/**
 * API-session tokens are stored as their SHA-256 (hex), never as given: a copy of the store (a backup,
 * a read replica, a leaked file) holds no usable credential. The token is a random UUID v4 (122 random
 * bits), so an unsalted fast hash is enough: there is nothing to guess from the hash.
 *
 * WebCrypto's digest is asynchronous and, on Node, costs a thread-pool hop (~50 µs) that would double
 * the cost of a session check; a bounded per-process map of recent tokens to their hashes keeps the
 * digest to the first request of each session. The map holds tokens in memory only, as every request
 * does anyway.
 */
import { uuid } from '../lib/ids.js';

const CACHE_MAX = 10_000;
const recent = new Map<string, string>();
const encoder = new TextEncoder();

function hex(buffer: ArrayBuffer): string {
  const bytes = new Uint8Array(buffer);
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += bytes[i].toString(16).padStart(2, '0');
  return out;
}

function remember(token: string, hash: string): void {
  if (recent.size >= CACHE_MAX) recent.delete(recent.keys().next().value as string);
  recent.set(token, hash);
}

/** The stored form of a token. */
export async function hashSessionToken(token: string): Promise<string> {
  const known = recent.get(token);
  if (known !== undefined) return known;
  const hash = hex(await crypto.subtle.digest('SHA-256', encoder.encode(token)));
  remember(token, hash);
  return hash;
}

/** A new token and the hash to store; the token is handed to the caller once, at login. */
export async function newSessionToken(): Promise<{ token: string; tokenHash: string }> {
  const token = uuid();
  return { token, tokenHash: await hashSessionToken(token) };
}

