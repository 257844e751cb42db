/**
 * Typed configuration, parsed from a plain record of strings (process.env on Node, the Worker's env
 * bindings on Workers), so that nothing below the entry files reads the environment itself.
 */
import { parseLogLevel, type LogLevel } from './observability/log.js';

export interface Config {
  /** host:port that clients use to reach the APIs (enrollment JWT `iss`, apiBaseUrls). */
  apiAddress: string;
  /** `https` (default), or `http` where the server really answers in plain HTTP (`wrangler dev`). */
  apiScheme: 'https' | 'http';
  /** `<apiScheme>://<apiAddress>`: the origin every advertised URL starts with. */
  apiOrigin: string;
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
  /** `ZITI_LOG_LEVEL`: the lowest level written to the log. */
  logLevel: LogLevel;
  /** `ZITI_SERVICE_PAGE_CACHE_MB`: UTF-8 bytes of client service pages kept per instance (0: none kept). */
  servicePageCacheBytes: number;
  /** `ZITI_METRICS=true` (or a `ZITI_METRICS_PORT`): the Node entry serves Prometheus metrics at `/metrics`. */
  metricsEnabled: boolean;
  /** `ZITI_METRICS_PORT`: serve `/metrics` on this separate plain-HTTP port only (null: on the API port). */
  metricsPort: number | null;
  /** `ZITI_METRICS_HOST` (default 127.0.0.1): where the separate metrics port listens. */
  metricsHost: string;
  /**
   * Peers (addresses or IPv4 CIDRs, `*` for any) whose `X-Forwarded-For` / `X-Real-IP` name the client
   * (`ZITI_TRUSTED_PROXIES`). Empty by default: forwarding headers are ignored (src/auth/client-address.ts).
   */
  trustedProxies: string[];
  /**
   * Browser origins allowed to call the APIs with credentials (`ZITI_CORS_ORIGINS`, comma-separated, `*` for
   * any origin but `null`). Loopback origins and the controller's own origin are always allowed (src/app.ts).
   */
  corsOrigins: string[];
  /** External JWT signers' JWKS may be fetched over http and from private, loopback and link-local hosts. */
  jwksAllowPrivate: boolean;
  /** Deadline of one JWKS fetch (connect, redirects and body), in milliseconds. */
  jwksTimeoutMs: number;
  /** The OIDC provider under `/oidc` and bearer access tokens on both APIs (src/oidc, docs/auth.md). */
  oidc: OidcConfig;
}

export interface OidcConfig {
  /** `ZITI_OIDC` (default true): serve `/oidc`, accept bearer tokens, announce `OIDC_AUTH` in `/version`. */
  enabled: boolean;
  /**
   * This controller's id in `/controllers` and `/controller-settings` (`ZITI_CONTROLLER_ID`); null: the
   * first 16 hex digits of the server certificate's SHA-1 (src/resources/controller-settings/service.ts).
   */
  controllerId: string | null;
  /** Access-token lifetime (`ZITI_OIDC_ACCESS_TOKEN_MINUTES`, default 30, at least 1). */
  accessTokenSeconds: number;
  /** ID-token lifetime (`ZITI_OIDC_ID_TOKEN_MINUTES`, default 30, at least 1). */
  idTokenSeconds: number;
  /** Refresh-token lifetime (`ZITI_OIDC_REFRESH_TOKEN_MINUTES`, default 1440; always more than access + 1 minute). */
  refreshTokenSeconds: number;
  /**
   * How stale this instance's copy of the revocation list may get (`ZITI_OIDC_REVOCATION_POLL_MS`, default
   * 5000): a revocation written by any instance stops a token everywhere within this bound (src/oidc/revocations.ts).
   */
  revocationPollMs: number;
}

/**
 * The OpenZiti controller release whose behaviour this project reproduces (what `/version` reports
 * and clients gate features on). The API contract itself is edge-api v0.26.45 (the spec files).
 */
export const CONTROLLER_VERSION = 'v1.6.2';
/** The version of OpenZiti's edge-api specification the routes are generated from. */
export const EDGE_API_SPEC_VERSION = 'v0.26.45';

function port(name: string, value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number (0-65535), got "${value}"`);
  return n;
}

function bool(name: string, value: string | undefined): boolean {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === 'false' || v === '0' || v === 'no') return false;
  if (v === 'true' || v === '1' || v === 'yes') return true;
  throw new Error(`${name} must be true or false, got "${value}"`);
}

function int(value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new Error(`expected an integer, got "${value}"`);
  return Math.min(max, Math.max(min, n));
}

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

export function parseConfig(env: Record<string, string | undefined>, runtimeVersion: string): Config {
  const apiAddress = env.ZITI_API_ADDRESS?.trim() || `localhost:${env.PORT?.trim() || '1280'}`;
  const scheme = (env.ZITI_API_SCHEME?.trim().toLowerCase() || 'https');
  if (scheme !== 'https' && scheme !== 'http') throw new Error(`ZITI_API_SCHEME must be https or http, got "${env.ZITI_API_SCHEME}"`);
  const host = apiAddress.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  const extra = (env.ZITI_HOSTNAMES ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const secret = env.CONTROLLER_SECRET ?? '';
  if (secret.length < 16) throw new Error('CONTROLLER_SECRET must be set to at least 16 characters');
  const metricsPort = port('ZITI_METRICS_PORT', env.ZITI_METRICS_PORT);
  const timeoutMinutes = int(env.ZITI_SESSION_TIMEOUT_MINUTES, 30, 0, 60 * 24 * 30);
  const enrollMinutes = int(env.ZITI_ENROLLMENT_DURATION_MINUTES, 180, 0, 60 * 24 * 365);
  return {
    apiAddress,
    apiScheme: scheme,
    apiOrigin: `${scheme}://${apiAddress}`,
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
    logLevel: parseLogLevel(env.ZITI_LOG_LEVEL),
    servicePageCacheBytes: int(env.ZITI_SERVICE_PAGE_CACHE_MB, 8, 0, 1024) * 1024 * 1024,
    metricsEnabled: bool('ZITI_METRICS', env.ZITI_METRICS) || metricsPort !== null,
    metricsPort,
    metricsHost: env.ZITI_METRICS_HOST?.trim() || '127.0.0.1',
    trustedProxies: list(env.ZITI_TRUSTED_PROXIES),
    corsOrigins: list(env.ZITI_CORS_ORIGINS).map((o) => (o === '*' ? o : o.replace(/\/+$/, '').toLowerCase())),
    jwksAllowPrivate: env.ZITI_JWKS_ALLOW_PRIVATE?.trim().toLowerCase() === 'true',
    jwksTimeoutMs: int(env.ZITI_JWKS_TIMEOUT_MS, 5000, 100, 30_000),
    oidc: parseOidcConfig(env),
  };
}

/** Token lifetimes as the controller intends them (its parser lets the last key set the access lifetime; ADR 0009). */
function parseOidcConfig(env: Record<string, string | undefined>): OidcConfig {
  const enabled = env.ZITI_OIDC === undefined || env.ZITI_OIDC.trim() === '' ? true : bool('ZITI_OIDC', env.ZITI_OIDC);
  const accessTokenSeconds = int(env.ZITI_OIDC_ACCESS_TOKEN_MINUTES, 30, 1, 60 * 24) * 60;
  const idTokenSeconds = int(env.ZITI_OIDC_ID_TOKEN_MINUTES, 30, 1, 60 * 24) * 60;
  // A refresh token must outlive the access token by more than a minute.
  const refreshTokenSeconds = Math.max(int(env.ZITI_OIDC_REFRESH_TOKEN_MINUTES, 24 * 60, 1, 60 * 24 * 30) * 60, accessTokenSeconds + 61);
  return {
    enabled,
    controllerId: env.ZITI_CONTROLLER_ID?.trim() || null,
    accessTokenSeconds,
    idTokenSeconds,
    refreshTokenSeconds,
    revocationPollMs: int(env.ZITI_OIDC_REVOCATION_POLL_MS, 5000, 50, 60_000),
  };
}
