import type { Context } from 'hono';

/**
 * The caller's address, without port; empty when none is known. It is the API session's `ipAddress` and
 * the failed-login throttle's key, so a client must not be able to choose it:
 * - on Node, the socket's peer address (the server passes its request as `env.incoming`). Only when that
 *   peer is a trusted proxy (`ZITI_TRUSTED_PROXIES`) is `X-Forwarded-For` read: its right-most hop that is
 *   not itself a trusted proxy (hops further left were written by the client), else `X-Real-IP`;
 * - without a socket (Workers), `CF-Connecting-IP`, which Cloudflare sets and a client cannot forge there;
 *   `X-Forwarded-For` is ignored.
 */
export function clientAddress(c: Context, trustedProxies: readonly string[]): string {
  const header = (name: string) => c.req.header(name)?.trim() || undefined;
  const peerRaw = socketAddress(c.env);
  if (peerRaw === undefined) return normalise(header('cf-connecting-ip') ?? '');
  const peer = normalise(peerRaw);
  if (!isTrusted(peer, trustedProxies)) return peer;
  const hops = (header('x-forwarded-for') ?? '')
    .split(',')
    .map((h) => normalise(h.trim()))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) if (!isTrusted(hops[i], trustedProxies)) return hops[i];
  return normalise(header('x-real-ip') ?? '') || hops[0] || peer;
}

function socketAddress(env: unknown): string | undefined {
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: unknown } } } | undefined)?.incoming;
  const address = incoming?.socket?.remoteAddress;
  return typeof address === 'string' ? address : undefined;
}

/** Whether an address is one of the trusted proxies: `*`, an exact address, or an IPv4 CIDR. */
export function isTrusted(address: string, trusted: readonly string[]): boolean {
  if (!address) return false;
  for (const entry of trusted) {
    if (entry === '*' || entry === address) return true;
    const cidr = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(entry);
    const ip = ipv4(address);
    if (cidr && ip !== undefined) {
      const base = ipv4(cidr[1]);
      const bits = Number(cidr[2]);
      if (base === undefined || bits > 32) continue;
      const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
      if (((ip & mask) >>> 0) === ((base & mask) >>> 0)) return true;
    }
  }
  return false;
}

function ipv4(address: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}

function normalise(address: string): string {
  let a = address.slice(0, 64);
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (bracketed) a = bracketed[1];
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(':'));
  // IPv4-mapped IPv6, as Node reports IPv4 peers on dual-stack sockets.
  if (/^::ffff:\d{1,3}(\.\d{1,3}){3}$/i.test(a)) a = a.slice(7);
  // Only address characters: a header value is never stored or used as a key as it was sent.
  return /^[0-9A-Za-z.:%_-]*$/.test(a) ? a : '';
}
