/**
 * Typed configuration, parsed from a plain record of strings (process.env on Node, the Worker's env
 * bindings on Workers), so that nothing below the entry files reads the environment itself.
 */
export interface Config {
  /** host:port that clients use to reach the APIs (enrollment JWT `iss`, apiBaseUrls). */
  apiAddress: string;
  /** Host names and IP addresses the TLS server certificate must cover. */
  hostnames: string[];
  /** Control-plane address announced to routers in enrollment JWTs (`ctrls`), if any. */
  ctrlAddress: string | null;
  controllerSecret: string;
  sessionTimeoutSeconds: number;
  enrollmentDurationMinutes: number;
  totpIssuer: string;
  trustDomain: string | null;
  version: string;
  revision: string;
  buildDate: string;
  runtimeVersion: string;
  /** Authentication rate limiter: concurrent in-flight logins per instance before 429. */
  authConcurrencyLimit: number;
  /** External JWT signers' JWKS may be fetched over http and from private, loopback and link-local hosts. */
  jwksAllowPrivate: boolean;
  /** Deadline of one JWKS fetch (connect, redirects and body), in milliseconds. */
  jwksTimeoutMs: number;
}

export const CONTROLLER_VERSION = 'v1.6.2';

function int(value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new Error(`expected an integer, got "${value}"`);
  return Math.min(max, Math.max(min, n));
}

export function parseConfig(env: Record<string, string | undefined>, runtimeVersion: string): Config {
  const apiAddress = env.ZITI_API_ADDRESS?.trim() || `localhost:${env.PORT?.trim() || '1280'}`;
  const host = apiAddress.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  const extra = (env.ZITI_HOSTNAMES ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const secret = env.CONTROLLER_SECRET ?? '';
  if (secret.length < 16) throw new Error('CONTROLLER_SECRET must be set to at least 16 characters');
  const timeoutMinutes = int(env.ZITI_SESSION_TIMEOUT_MINUTES, 30, 0, 60 * 24 * 30);
  const enrollMinutes = int(env.ZITI_ENROLLMENT_DURATION_MINUTES, 180, 0, 60 * 24 * 365);
  return {
    apiAddress,
    hostnames: [...new Set([host, 'localhost', '127.0.0.1', ...extra])],
    ctrlAddress: env.ZITI_CTRL_ADDRESS?.trim() || null,
    controllerSecret: secret,
    // Values below one minute fall back to the default, as the controller does.
    sessionTimeoutSeconds: (timeoutMinutes < 1 ? 30 : timeoutMinutes) * 60,
    enrollmentDurationMinutes: enrollMinutes < 5 ? 180 : enrollMinutes,
    totpIssuer: env.ZITI_TOTP_ISSUER?.trim() || 'openziti.io',
    trustDomain: env.ZITI_TRUST_DOMAIN?.trim() || null,
    version: CONTROLLER_VERSION,
    revision: env.ZITI_REVISION ?? 'local',
    buildDate: env.ZITI_BUILD_DATE ?? '',
    runtimeVersion,
    authConcurrencyLimit: int(env.ZITI_AUTH_CONCURRENCY, 64, 1, 10_000),
    jwksAllowPrivate: env.ZITI_JWKS_ALLOW_PRIVATE?.trim().toLowerCase() === 'true',
    jwksTimeoutMs: int(env.ZITI_JWKS_TIMEOUT_MS, 5000, 100, 30_000),
  };
}
