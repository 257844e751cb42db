/**
 * Cloudflare Workers entry: D1 binding `DB` (or a remote libSQL URL), configuration from bindings and
 * secrets. TLS is terminated by the platform; with mTLS enabled a verified client certificate reaches
 * the app as `request.cf.tlsClientAuth` (its SHA-1 fingerprint only).
 */
import 'reflect-metadata';
import { createClient } from '@libsql/client/web';
import { createApp } from './app.js';
import { bootstrapStore } from './bootstrap.js';
import { parseConfig } from './config.js';
import type { Db } from './db/client.js';
import { openD1, openLibsql } from './db/open.js';
import { consoleLogger, type ClientCertificate, type Deps, type Runtime } from './deps.js';

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
 * D1 through its Sessions API: one session per isolate starting `first-unconstrained`, so reads may be
 * served by the read replica nearest to this isolate; every query of the session carries its bookmark,
 * so after a write through this isolate its reads never go back in time. Another isolate's writes may
 * not have reached the replica yet: lookups that must see them (a session token right after login)
 * retry on the primary (`primaryDb`, the binding without a session, which always reaches the primary).
 * Consistency a client gets: docs/adr/0002-store-drivers-and-read-replicas.md.
 */
function openStore(env: Env): { db: Db; primaryDb?: Db } {
  if (env.LIBSQL_URL) return { db: openLibsql(createClient({ url: env.LIBSQL_URL, authToken: env.LIBSQL_AUTH_TOKEN })) };
  if (env.DB) {
    const primaryDb = openD1(env.DB);
    if (typeof env.DB.withSession !== 'function') return { db: primaryDb };
    return { db: openD1(env.DB.withSession('first-unconstrained') as unknown as NonNullable<Env['DB']>), primaryDb };
  }
  throw new Error('no store: bind a D1 database as DB or set LIBSQL_URL');
}

/** Dependencies are built once per isolate; a failed start is retried on the next request. */
let depsPromise: Promise<Deps> | undefined;

async function init(env: Env): Promise<Deps> {
  const config = parseConfig(stringEnv(env), 'workerd');
  const { db, primaryDb } = openStore(env);
  // Migrations are applied by `wrangler d1 migrations apply`; here only built-ins, PKI and admin.
  // On the primary: the PKI insert-if-absent must converge with other isolates' first starts.
  const admin = env.ADMIN_PASSWORD ? { username: env.ADMIN_USERNAME ?? 'admin', password: env.ADMIN_PASSWORD } : undefined;
  const { pki } = await bootstrapStore(primaryDb ?? db, config, admin);
  return { db, primaryDb, config, pki, log: consoleLogger, now: () => Date.now() };
}

interface TlsClientAuth {
  certPresented?: string;
  certVerified?: string;
  certFingerprintSHA1?: string;
}

export const runtime: Runtime = {
  deps(env) {
    depsPromise ??= init(env as Env).catch((e) => {
      depsPromise = undefined;
      throw e;
    });
    return depsPromise;
  },
  clientCertificate(request): ClientCertificate | undefined {
    const tls = (request as Request & { cf?: { tlsClientAuth?: TlsClientAuth } }).cf?.tlsClientAuth;
    if (tls?.certPresented !== '1' || !tls.certFingerprintSHA1) return undefined;
    return { chainDer: [], fingerprintSha1: tls.certFingerprintSHA1.toLowerCase() };
  },
  waitUntil(promise, executionCtx) {
    const ctx = executionCtx as ExecutionContext | undefined;
    if (ctx?.waitUntil) ctx.waitUntil(promise);
  },
};

const app = createApp(runtime);

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
