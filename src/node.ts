/**
 * Node.js entry: serves both APIs over HTTPS with a certificate from the controller's own PKI, on an
 * embedded libSQL file (or a remote libSQL URL), applying migrations and bootstrapping on start.
 * This file and src/worker.ts are the only places that know their runtime.
 */
import 'reflect-metadata';
import { lookup } from 'node:dns/promises';
import { createServer as createHttpsServer } from 'node:https';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes, X509Certificate as NodeX509 } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { TLSSocket } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import { serve, type ServerType } from '@hono/node-server';
import { createClient, type Client } from '@libsql/client';
import { migrate } from 'drizzle-orm/libsql/migrator';
import type { Logger as QueryLogger } from 'drizzle-orm/logger';
import { createApp } from './app.js';
import { bootstrapStore, type BootstrapResult } from './bootstrap.js';
import { parseConfig, type Config } from './config.js';
import type { Db } from './db/client.js';
import { openLibsql } from './db/open.js';
import { setJwksHostResolver } from './auth/ext-jwt/jwks.js';
import { consoleLogger, type ClientCertificate, type Deps, type Logger, type Runtime } from './deps.js';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const MIGRATIONS_DIR = join(projectRoot, 'drizzle');

export interface NodeController {
  deps: Deps;
  bootstrap: BootstrapResult;
  server: ServerType;
  port: number;
  client: Client;
  close(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  queryLogger?: QueryLogger;
  /** Print the start-up banner (the CLI does; tests and the benchmark do not). */
  banner?: boolean;
}

/** Reads CONTROLLER_SECRET, or creates one in the data directory (mode 0600) on first start. */
function controllerSecret(env: Record<string, string | undefined>, dataDir: string): string {
  if (env.CONTROLLER_SECRET) return env.CONTROLLER_SECRET;
  const file = join(dataDir, 'controller.secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return secret;
}

/** Applies the migrations in drizzle/ and returns the database handle. */
export async function openNodeStore(client: Client, queryLogger?: QueryLogger): Promise<Db> {
  const db = openLibsql(client, queryLogger);
  await migrate(db as never, { migrationsFolder: MIGRATIONS_DIR });
  return db;
}

function peerCertificate(incoming: IncomingMessage | undefined): ClientCertificate | undefined {
  const socket = incoming?.socket as TLSSocket | undefined;
  if (!socket || typeof socket.getPeerCertificate !== 'function') return undefined;
  const leaf = socket.getPeerCertificate(true);
  if (!leaf || !leaf.raw) return undefined;
  const chainDer: Uint8Array[] = [];
  const seen = new Set<string>();
  for (let c: typeof leaf | undefined = leaf; c && c.raw && !seen.has(c.fingerprint256); c = c.issuerCertificate) {
    seen.add(c.fingerprint256);
    chainDer.push(new Uint8Array(c.raw));
  }
  return { chainDer };
}

export async function startController(env: Record<string, string | undefined>, options: StartOptions = {}): Promise<NodeController> {
  const log = options.logger ?? consoleLogger;
  const dataDir = resolve(env.DATA_DIR ?? join(process.cwd(), 'data'));
  // libSQL does not create a missing directory.
  mkdirSync(dataDir, { recursive: true });
  const port = Number(env.PORT ?? 1280);
  const config: Config = parseConfig(
    { ...env, CONTROLLER_SECRET: controllerSecret(env, dataDir), ZITI_API_ADDRESS: env.ZITI_API_ADDRESS ?? `localhost:${port}` },
    `node${process.versions.node}`,
  );
  const url = env.LIBSQL_URL ?? pathToFileURL(join(dataDir, 'controller.db')).href;
  const client = createClient({ url, authToken: env.LIBSQL_AUTH_TOKEN });
  const db = await openNodeStore(client, options.queryLogger);
  const bootstrap = await bootstrapStore(db, config, { username: env.ADMIN_USERNAME ?? 'admin', password: env.ADMIN_PASSWORD || undefined });
  const deps: Deps = { db, config, pki: bootstrap.pki, log, now: () => Date.now() };
  const depsPromise = Promise.resolve(deps);

  const runtime: Runtime = {
    deps: () => depsPromise,
    clientCertificate: (_req, bindings) => peerCertificate((bindings as { incoming?: IncomingMessage } | undefined)?.incoming),
    waitUntil: (promise) => void promise,
  };
  // Names are resolved before a JWKS fetch, so a public-looking name cannot lead into the private network.
  setJwksHostResolver(async (host) => (await lookup(host, { all: true })).map((a) => a.address));
  const app = createApp(runtime);
  const pki = bootstrap.pki;
  const server = await new Promise<ServerType>((resolveServer) => {
    const s = serve(
      {
        fetch: app.fetch,
        port,
        hostname: env.HOST ?? '0.0.0.0',
        createServer: createHttpsServer,
        serverOptions: {
          key: await_(pki.serverKeyPkcs8Pem()),
          cert: await_(pki.serverChainPem()),
          // Client certificates are requested, never required: certificate login and enrollment use them.
          requestCert: true,
          rejectUnauthorized: false,
        },
      },
      () => resolveServer(s),
    );
  });
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;

  if (options.banner) {
    const rootFingerprint = new NodeX509(pki.root.pem).fingerprint256;
    const base = `https://${config.apiAddress}`;
    const lines = [
      `OpenZiti-compatible controller ${config.version} listening on https://${env.HOST ?? '0.0.0.0'}:${boundPort}`,
      `  client API:      ${base}/edge/client/v1`,
      `  management API:  ${base}/edge/management/v1`,
      `  root CA SHA-256: ${rootFingerprint}`,
      `  trust bundle:    curl -sk ${base}/.well-known/est/cacerts`,
    ];
    if (bootstrap.createdAdmin) {
      lines.push(`  default admin:   ${bootstrap.createdAdmin.username}`);
      if (bootstrap.createdAdmin.generatedPassword) {
        lines.push(`  admin password:  ${bootstrap.createdAdmin.generatedPassword}   (shown once; set ADMIN_PASSWORD to choose one)`);
      }
    }
    lines.push(`  log in:          ziti edge login ${config.apiAddress} -u ${env.ADMIN_USERNAME ?? 'admin'} -p <password> --yes`);
    console.log(lines.join('\n'));
  }

  return {
    deps,
    bootstrap,
    server,
    port: boundPort,
    client,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => {
          client.close();
          done();
        });
      }),
  };
}

// PEM getters may be sync or async in the PKI module; the server options need plain strings.
function await_<T>(value: T | Promise<T>): T {
  if (value instanceof Promise) throw new Error('PKI PEM getters must be synchronous');
  return value;
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  startController(process.env, { banner: true }).catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
