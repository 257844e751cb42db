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
import type { ClientCertificate, Deps, Runtime, RuntimeOperations, SnapshotOutcome } from './deps.js';
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
 * The store, with every round trip timed into `tally` when there is one (reported on the request log lines).
 * D1 goes through
 * its Sessions API: one session per isolate starting `first-unconstrained`, so reads may be served by the
 * read replica nearest to this isolate; every query of the session carries its bookmark, so after a write
 * through this isolate its reads never go back in time. Another isolate's writes may not have reached the
 * replica yet: lookups that must see them (a session token right after login) retry on the primary
 * (`primaryDb`, the binding without a session, which always reaches the primary). Consistency a client
 * gets: docs/adr/0004-store-drivers-and-read-replicas.md.
 */
function openStore(env: Env, tally: StoreTally | undefined): { db: Db; primaryDb?: Db } {
  if (env.LIBSQL_URL) {
    const client = createClient({ url: env.LIBSQL_URL, authToken: env.LIBSQL_AUTH_TOKEN });
    return { db: openLibsql(tally ? timeLibsqlClient(client, tally) : client) };
  }
  if (env.DB) {
    const timedD1 = <D extends object>(d1: D): D => (tally ? timeD1(d1, tally) : d1);
    const primaryDb = openD1(timedD1(env.DB));
    if (typeof env.DB.withSession !== 'function') return { db: primaryDb };
    return { db: openD1(timedD1(env.DB.withSession('first-unconstrained') as unknown as NonNullable<Env['DB']>)), primaryDb };
  }
  throw new Error('no store: bind a D1 database as DB or set LIBSQL_URL');
}

/** Dependencies are built once per isolate; a failed start is retried on the next request. */
let depsPromise: Promise<Deps> | undefined;

async function init(env: Env): Promise<Deps> {
  const config = parseConfig(stringEnv(env), 'workerd');
  // The tally feeds the `request` log lines alone (no scrape target on Workers): none when they are not
  // written, so that no statement pays for timing nobody reads (a wrapper on every prepare and bind).
  const metrics = config.logLevel === 'debug' || config.logLevel === 'info' ? new StoreTally() : undefined;
  const { db, primaryDb } = openStore(env, metrics);
  // Migrations are applied by `wrangler d1 migrations apply`; here only built-ins, PKI and admin.
  // On the primary: the PKI insert-if-absent must converge with other isolates' first starts.
  const admin = env.ADMIN_PASSWORD ? { username: env.ADMIN_USERNAME ?? 'admin', password: env.ADMIN_PASSWORD } : undefined;
  const { pki } = await bootstrapStore(primaryDb ?? db, config, admin);
  // No scrape target on Workers: request, login and store counters ride on the JSON request log lines.
  return { db, primaryDb, config, pki, log: jsonLogger(config.logLevel), now: () => Date.now(), metrics, operations: workerOperations(env) };
}

/**
 * Operator jobs on Workers (docs/adr/0012-operations-integrity-and-snapshots.md): work deferred after a
 * response runs inside `waitUntil`, which ends 30 s after the response, so it runs in slices of at most
 * 20 s and is carried on by the next request. A snapshot is what the store offers: D1 keeps its own
 * history (Time Travel), and a bookmark read on the primary names this moment of it; a remote libSQL
 * database has its own point-in-time restore, which the controller cannot trigger.
 */
function workerOperations(env: Env): RuntimeOperations {
  const unsupported = (reason: string): SnapshotOutcome => ({ kind: 'unsupported', reason });
  return {
    backgroundBudgetMs: 20_000,
    async snapshot(now) {
      const moment = new Date(now).toISOString();
      if (env.LIBSQL_URL) {
        return unsupported(`the store is a remote libSQL database, which the controller cannot copy; use the platform's point-in-time restore for ${moment} (Turso: turso db create <new-name> --from-db <database> --timestamp <that time>)`);
      }
      const d1 = env.DB;
      if (!d1 || typeof d1.withSession !== 'function') return unsupported(`this D1 binding offers no bookmarks; restore with wrangler d1 time-travel restore <database> --timestamp=${moment}`);
      const session = d1.withSession('first-primary');
      await session.prepare('SELECT 1').first();
      const bookmark = session.getBookmark();
      if (!bookmark) return unsupported(`D1 gave no bookmark for this moment; restore with wrangler d1 time-travel restore <database> --timestamp=${moment}`);
      return { kind: 'bookmark', bookmark, restore: `wrangler d1 time-travel restore <database> --bookmark=${bookmark}` };
    },
  };
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
