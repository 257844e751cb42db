import type { Context } from 'hono';

/**
 * The caller's address, without port: `cf-connecting-ip` (set by Cloudflare), else the first
 * `x-forwarded-for` hop, else `x-real-ip`, else the socket's peer address when the runtime exposes one
 * (the Node server passes its request as `env.incoming`). Empty when none is known.
 *
 * Forwarding headers are client-controlled unless a proxy overwrites them: the address is informational
 * (the API session's `ipAddress`) and a throttling key, never an authorisation input.
 */
export function clientAddress(c: Context): string {
  const header = (name: string) => c.req.header(name)?.trim() || undefined;
  const forwarded = header('cf-connecting-ip') ?? header('x-forwarded-for')?.split(',')[0]?.trim() ?? header('x-real-ip');
  const raw = forwarded || socketAddress(c.env) || '';
  return normalise(raw);
}

function socketAddress(env: unknown): string | undefined {
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: unknown } } } | undefined)?.incoming;
  const address = incoming?.socket?.remoteAddress;
  return typeof address === 'string' ? address : undefined;
}

function normalise(address: string): string {
  let a = address.slice(0, 64);
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (bracketed) a = bracketed[1];
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(':'));
  // IPv4-mapped IPv6, as Node reports IPv4 peers on dual-stack sockets.
  if (/^::ffff:\d{1,3}(\.\d{1,3}){3}$/i.test(a)) a = a.slice(7);
  return a;
}
