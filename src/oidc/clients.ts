/**
 * The provider's clients and issuers (reference oidc.md §1, §2.1, §3.1, §5.1, §12.6, §12.8): two public,
 * PKCE-only clients (`openziti`, and `native` for older SDKs) and the redirect-URI rules they are held to.
 */
import type { Config } from '../config.js';

export const CLIENT_IDS = ['openziti', 'native'] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

export function isClientId(value: string | undefined | null): value is ClientId {
  return value === 'openziti' || value === 'native';
}

/** Built-in redirect URIs (the controller's defaults), in force where no controller setting names others. */
export const DEFAULT_REDIRECT_URIS = [
  'openziti://auth/callback',
  'https://127.0.0.1:*/auth/callback',
  'http://127.0.0.1:*/auth/callback',
  'https://localhost:*/auth/callback',
  'http://localhost:*/auth/callback',
];

export const DEFAULT_POST_LOGOUT_URIS = [
  'openziti://auth/logout',
  'https://127.0.0.1:*/auth/logout',
  'http://127.0.0.1:*/auth/logout',
  'https://localhost:*/auth/logout',
  'http://localhost:*/auth/logout',
];

/** `*` matches any run of characters other than `/` (Go's `path.Match`, as the controller uses); nothing else is special. */
export function globMatch(pattern: string, value: string): boolean {
  if (!pattern.includes('*')) return pattern === value;
  const parts = pattern.split('*');
  const re = new RegExp(`^${parts.map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
  return re.test(value);
}

function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Whether a redirect URI may receive codes (§5.1): it must match a registered URI (exactly or by glob);
 * `https` URIs and custom schemes (`openziti://`) may then go anywhere, plain `http` only to a loopback
 * host. URIs with a fragment, user info or no scheme never qualify.
 */
export function redirectAllowed(uri: string, registered: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.hash || url.username || url.password || uri.includes('#')) return false;
  if (!registered.some((p) => globMatch(p, uri))) return false;
  if (url.protocol === 'https:') return true;
  if (url.protocol === 'http:') return isLoopbackHost(url.hostname);
  return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) && url.protocol !== 'javascript:' && url.protocol !== 'data:';
}

/** Post-logout URIs follow the same rules (the controller matches them only exactly, §2.1; ADR 0013). */
export const postLogoutAllowed = redirectAllowed;

/**
 * The issuer a request reaches the provider under (§3.1, §12.6): `<scheme>://<Host>/oidc` when the Host
 * header names one of the controller's host names (SDKs build the issuer from the host they dialled),
 * else the configured API origin's.
 */
export function issuerFor(config: Pick<Config, 'apiScheme' | 'apiOrigin' | 'hostnames'>, requestUrl: string): string {
  try {
    const url = new URL(requestUrl);
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (config.hostnames.some((h) => h.toLowerCase() === host)) return `${config.apiScheme}://${url.host}/oidc`;
  } catch {
    // fall through
  }
  return `${config.apiOrigin}/oidc`;
}

/** Whether `iss` is an issuer this controller mints under (any of its host names, any port). */
export function acceptedIssuer(config: Pick<Config, 'apiScheme' | 'hostnames'>, iss: unknown): boolean {
  if (typeof iss !== 'string') return false;
  try {
    const url = new URL(iss);
    if (url.protocol !== `${config.apiScheme}:` || url.pathname !== '/oidc' || url.search || url.hash) return false;
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    return config.hostnames.some((h) => h.toLowerCase() === host);
  } catch {
    return false;
  }
}
