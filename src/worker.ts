/**
 * Cloudflare Workers entry: D1 binding `DB` (or a remote libSQL URL), configuration from bindings and
 * secrets. TLS is terminated by the platform; with mTLS enabled a verified client certificate reaches
 * the app as `request.cf.tlsClientAuth` (its SHA-1 fingerprint only).
 */
import 'reflect-metadata';
import { createClient } from '@libsql/client/web';
import { createApp } from './app.js';
import { runMaintenance } from './maintenance.js';
import { bootstrapStore } from './bootstrap.js';
import { parseConfig } from './config.js';
import type { Db } from './db/client.js';
import { openD1, openLibsql } from './db/open.js';
import type { ClientCertificate, Deps, Runtime } from './deps.js';
import { jsonLogger } from './observability/log.js';
import { StoreTally } from './observability/metrics.js';
import { timeD1, timeLibsqlClient } from './observability/store-timing.js';

export interface Env {
  DB?: D1Database;
  LIBSQL_URL?: string;
  LIBSQL_AUTH_TOKEN?: string;
  CONTROLLER_SECRET?: string;
  ADMIN_USERNAME?: string;
  ADMIN_PASSWORD?: string;
  [key: string]: unknown;
}

function stringEnv(env: Env): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === 'string') out[k] = v;
  return out;
}

/**
 * The store, with every round trip timed into `tally` (reported on the request log lines). D1 goes through
 * its Sessions API: one session per isolate starting `first-unconstrained`, so reads may be served by the
 * read replica nearest to this isolate; every query of the session carries its bookmark, so after a write
 * through this isolate its reads never go back in time. Another isolate's writes may not have reached the
 * replica yet: lookups that must see them (a session token right after login) retry on the primary
 * (`primaryDb`, the binding without a session, which always reaches the primary). Consistency a client
 * gets: docs/adr/0004-store-drivers-and-read-replicas.md.
 */
function openStore(env: Env, tally: StoreTally): { db: Db; primaryDb?: Db } {
  if (env.LIBSQL_URL) return { db: openLibsql(timeLibsqlClient(createClient({ url: env.LIBSQL_URL, authToken: env.LIBSQL_AUTH_TOKEN }), tally)) };
  if (env.DB) {
    const binding = timeD1(env.DB, tally);
    const primaryDb = openD1(binding);
    if (typeof env.DB.withSession !== 'function') return { db: primaryDb };
    return { db: openD1(timeD1(env.DB.withSession('first-unconstrained') as unknown as NonNullable<Env['DB']>, tally)), primaryDb };
  }
  throw new Error('no store: bind a D1 database as DB or set LIBSQL_URL');
}

/** Dependencies are built once per isolate; a failed start is retried on the next request. */
let depsPromise: Promise<Deps> | undefined;

async function init(env: Env): Promise<Deps> {
  const config = parseConfig(stringEnv(env), 'workerd');
  const metrics = new StoreTally();
  const { db, primaryDb } = openStore(env, metrics);
  // Migrations are applied by `wrangler d1 migrations apply`; here only built-ins, PKI and admin.
  // On the primary: the PKI insert-if-absent must converge with other isolates' first starts.
  const admin = env.ADMIN_PASSWORD ? { username: env.ADMIN_USERNAME ?? 'admin', password: env.ADMIN_PASSWORD } : undefined;
  const { pki } = await bootstrapStore(primaryDb ?? db, config, admin);
  // No scrape target on Workers: request, login and store counters ride on the JSON request log lines.
  return { db, primaryDb, config, pki, log: jsonLogger(config.logLevel), now: () => Date.now(), metrics };
}

interface TlsClientAuth {
  certPresented?: string;
  certVerified?: string;
  certFingerprintSHA1?: string;
}

/** base64 DER or PEM of one certificate, as a zone may forward it; undefined when it is neither. */
function forwardedDer(value: string | null): Uint8Array | undefined {
  if (!value) return undefined;
  try {
    const b64 = decodeURIComponent(value).replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
    const bin = atob(b64);
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

export const runtime: Runtime = {
  deps(env) {
    depsPromise ??= init(env as Env).catch((e) => {
      depsPromise = undefined;
      throw e;
    });
    return depsPromise;
  },
  /**
   * The platform's verdict on the TLS client certificate (hostname mTLS with the controller's root CA
   * uploaded as the zone's CA, docs/pki.md): only a presented *and* verified certificate counts. The leaf
   * itself is read from a forwarded header only when the operator names that header in
   * ZITI_CLIENT_CERT_HEADER, and the certificate login then requires the forwarded leaf to be the very
   * certificate the platform verified (same SHA-1), so a client cannot substitute one.
   */
  clientCertificate(request, env): ClientCertificate | undefined {
    const tls = (request as Request & { cf?: { tlsClientAuth?: TlsClientAuth } }).cf?.tlsClientAuth;
    if (tls?.certPresented !== '1' || tls.certVerified !== 'SUCCESS' || !tls.certFingerprintSHA1) return undefined;
    const fingerprintSha1 = tls.certFingerprintSHA1.toLowerCase();
    const header = typeof (env as Env | undefined)?.ZITI_CLIENT_CERT_HEADER === 'string' ? ((env as Env).ZITI_CLIENT_CERT_HEADER as string).trim() : '';
    const der = header ? forwardedDer(request.headers.get(header)) : undefined;
    return { chainDer: der ? [der] : [], fingerprintSha1 };
  },
  waitUntil(promise, executionCtx) {
    const ctx = executionCtx as ExecutionContext | undefined;
    if (ctx?.waitUntil) ctx.waitUntil(promise);
  },
};

const app = createApp(runtime);

export default {
  fetch: app.fetch,
  /** The cron trigger of wrangler.toml: periodic work (src/maintenance.ts). */
  scheduled(_controller, env, ctx) {
    ctx.waitUntil(runtime.deps(env).then(runMaintenance));
  },
} satisfies ExportedHandler<Env>;
