export const CLIENT_BASE = '/edge/client/v1';
export const MANAGEMENT_BASE = '/edge/management/v1';

/**
 * Maps a request path onto the routed one, as the controller does:
 * - `//` inside paths is collapsed (the admin console sends them);
 * - the legacy `/edge/v1/...` prefix is the client API;
 * - anything outside `/edge`, `/fabric`, `/oidc` and `/.well-known` is the client API (`/authenticate`,
 *   `/enroll`, `/version` at the root), and so is the root `/.well-known/est/cacerts`.
 */
export function canonicalPath(rawPath: string): string {
  let p = rawPath.includes('//') ? rawPath.replace(/\/{2,}/g, '/') : rawPath;
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  if (p.startsWith(CLIENT_BASE) || p.startsWith(MANAGEMENT_BASE)) return p;
  if (p === '/edge/v1' || p.startsWith('/edge/v1/')) return CLIENT_BASE + p.slice('/edge/v1'.length);
  if (p.startsWith('/.well-known/')) return CLIENT_BASE + p;
  if (p.startsWith('/edge') || p.startsWith('/fabric')) return p;
  // The OIDC provider (src/oidc/routes.ts) is its own tree.
  if (p === '/oidc' || p.startsWith('/oidc/')) return p;
  return p === '/' ? CLIENT_BASE : CLIENT_BASE + p;
}

/** The path of a request URL without parsing the whole URL. */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const q = url.indexOf('?', start);
  return q < 0 ? url.slice(start) : url.slice(start, q);
}
