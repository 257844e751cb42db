/**
 * Node.js entry: serves both APIs over HTTPS with a certificate from the controller's own PKI, on an
 * embedded libSQL file (or a remote libSQL URL), applying migrations and bootstrapping on start.
 * This file and src/worker.ts are the only places that know their runtime.
 */
import 'reflect-metadata';
import { lookup } from 'node:dns/promises';
import { createServer as createHttpsServer, type ServerOptions } from 'node:https';
import { accessSync, chmodSync, constants as fsConstants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes, X509Certificate as NodeX509 } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TLSSocket } from 'node:tls';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { getRequestListener, serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Client } from '@libsql/client';
import { migrate } from 'drizzle-orm/libsql/migrator';
import type { Logger as QueryLogger } from 'drizzle-orm/logger';
import { createApp } from './app.js';
import { MAINTENANCE_INTERVAL_MS, runMaintenance } from './maintenance.js';
import { bootstrapStore, type BootstrapResult } from './bootstrap.js';
import { EDGE_API_SPEC_VERSION, parseConfig, type Config } from './config.js';
import type { Db } from './db/client.js';
import { nodeStoreOperations, openStore, prepareDataDir, type NodeStore } from './db/node-store.js';
import { openLibsql } from './db/open.js';
import { setJwksHostResolver } from './auth/ext-jwt/jwks.js';
import { ERROR_META, errorResponse } from './http/envelope.js';
import { ApiError, ERROR_CATALOGUE, type ErrorCode } from './errors.js';
import { shortId } from './lib/ids.js';
import { readCapped } from './lib/streams.js';
import type { ClientCertificate, Deps, Logger, Runtime } from './deps.js';
import { jsonLogger } from './observability/log.js';
import { PrometheusMetrics } from './observability/metrics.js';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const MIGRATIONS_DIR = join(projectRoot, 'drizzle');

export interface NodeController {
  deps: Deps;
  /** The application the server serves (in-process measurements call its fetch directly). */
  app: Hono;
  bootstrap: BootstrapResult;
  server: ServerType;
  port: number;
  /** The separate metrics port (ZITI_METRICS_PORT), when there is one. */
  metricsPort?: number;
  /** The open store (embedded file through the native driver, or remote libSQL). */
  store: NodeStore;
  /**
   * Stops accepting connections, lets in-flight requests finish for up to `graceMs` (then drops the
   * connections still open), and closes the store.
   */
  close(graceMs?: number): Promise<void>;
}

/** A start-up failure the operator can fix; the CLI prints its message as one line. */
export class StartupError extends Error {}

/** How long a stopping server lets in-flight requests finish; `kill` must stop it within 2 s. */
export const SHUTDOWN_GRACE_MS = 1_500;

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

/** Applies the migrations in drizzle/ to a libSQL client (in-memory and test stores) and returns the database handle. */
export async function openNodeStore(client: Client, queryLogger?: QueryLogger): Promise<Db> {
  const db = openLibsql(client, queryLogger);
  await migrate(db as never, { migrationsFolder: MIGRATIONS_DIR });
  return db;
}

/** A TLS connection's client certificate never changes: it is read once per connection, not per request. */
const peerChains = new WeakMap<TLSSocket, ClientCertificate | null>();

function peerCertificate(incoming: IncomingMessage | undefined): ClientCertificate | undefined {
  const socket = incoming?.socket as TLSSocket | undefined;
  if (!socket || typeof socket.getPeerCertificate !== 'function') return undefined;
  let chain = peerChains.get(socket);
  if (chain === undefined) {
    chain = readPeerChain(socket) ?? null;
    peerChains.set(socket, chain);
  }
  return chain ?? undefined;
}

function readPeerChain(socket: TLSSocket): ClientCertificate | undefined {
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
  const dataDir = resolve(env.DATA_DIR ?? join(process.cwd(), 'data'));
  usableDataDir(dataDir, !env.LIBSQL_URL);
  // It holds the store and the secret: 0700.
  prepareDataDir(dataDir);
  const port = Number(env.PORT ?? 1280);
  const config: Config = parseConfig(
    { ...env, CONTROLLER_SECRET: controllerSecret(env, dataDir), ZITI_API_ADDRESS: env.ZITI_API_ADDRESS ?? `localhost:${port}` },
    `node${process.versions.node}`,
  );
  const metrics = config.metricsEnabled ? new PrometheusMetrics() : undefined;
  const store = await openStore({
    url: env.LIBSQL_URL,
    authToken: env.LIBSQL_AUTH_TOKEN,
    dataDir,
    migrationsFolder: MIGRATIONS_DIR,
    queryLogger: options.queryLogger,
    onTiming: metrics ? (kind, seconds, failed) => metrics.storeStatement(kind, seconds, failed) : undefined,
  });
  const db = store.db;
  const bootstrap = await bootstrapStore(db, config, { username: env.ADMIN_USERNAME ?? 'admin', password: env.ADMIN_PASSWORD || undefined });
  const log = options.logger ?? jsonLogger(config.logLevel);
  const deps: Deps = { db, config, pki: bootstrap.pki, log, now: () => Date.now(), metrics, operations: nodeStoreOperations(store) };
  const depsPromise = Promise.resolve(deps);

  const runtime: Runtime = {
    deps: () => depsPromise,
    clientCertificate: (_req, bindings) => peerCertificate((bindings as NodeBindings | undefined)?.incoming),
    readBody: (req, bindings, maxBytes, tooLarge) => readIncoming(bindings as NodeBindings | undefined, req, maxBytes, tooLarge),
    waitUntil: (promise) => void promise,
    remakeForHeaders: true,
  };
  // Names are resolved before a JWKS fetch, so a public-looking name cannot lead into the private network.
  setJwksHostResolver(async (host) => (await lookup(host, { all: true })).map((a) => a.address));
  const app = createApp(runtime);
  const pki = bootstrap.pki;
  const server = await new Promise<ServerType>((resolveServer, rejectServer) => {
    const s = serve(
      {
        fetch: app.fetch,
        port,
        hostname: env.HOST ?? '0.0.0.0',
        // The listener is built here, not by serve(), to give it an error handler: a request it cannot turn
        // into a URL (bad Host, `GET *`) is answered in the error envelope instead of an empty 400.
        createServer: ((options: ServerOptions) => createHttpsServer(options, getRequestListener(app.fetch, { hostname: env.HOST ?? '0.0.0.0', errorHandler: requestErrorResponse }))) as never,
        serverOptions: {
          key: await_(pki.serverKeyPkcs8Pem()),
          cert: await_(pki.serverChainPem()),
          // Client certificates are requested, never required: certificate login and enrollment use them.
          requestCert: true,
          rejectUnauthorized: false,
          ...TRANSPORT_LIMITS,
          // Without a Host header the listen address stands in (HTTP/1.0 clients send none).
          requireHostHeader: false,
        },
      },
      () => resolveServer(s),
    );
    // listen() reports a port in use or a privileged port asynchronously, as an 'error' event.
    s.once('error', (e: NodeJS.ErrnoException) => {
      store.close();
      rejectServer(listenError(e, env.HOST ?? '0.0.0.0', port));
    });
  });
  server.on('clientError', answerClientError);
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  let metricsServer: HttpServer | undefined;
  if (metrics && config.metricsPort !== null) {
    try {
      metricsServer = await listenMetrics(metrics, config.metricsHost, config.metricsPort);
    } catch (e) {
      await closeGracefully(server, store, 0);
      throw e;
    }
  }
  const metricsAddress = metricsServer?.address();
  const metricsPort = typeof metricsAddress === 'object' && metricsAddress ? metricsAddress.port : undefined;

  if (options.banner) console.log(banner(config, bootstrap, env, boundPort, metricsPort));
  const maintenance = setInterval(() => void runMaintenance(deps), MAINTENANCE_INTERVAL_MS);
  maintenance.unref();

  return {
    deps,
    app,
    bootstrap,
    server,
    port: boundPort,
    metricsPort,
    store,
    close: async (graceMs = SHUTDOWN_GRACE_MS) => {
      clearInterval(maintenance);
      metricsServer?.close();
      metricsServer?.closeAllConnections();
      await closeGracefully(server, store, graceMs);
    },
  };
}

/**
 * What a newcomer needs on the terminal: where it listens, which versions mean what, how to trust the
 * CA and log in with curl, and the truth about the admin password on this start.
 */
function banner(config: Config, bootstrap: BootstrapResult, env: Record<string, string | undefined>, boundPort: number, metricsPort: number | undefined): string {
  const base = config.apiOrigin;
  const username = env.ADMIN_USERNAME ?? 'admin';
  const lines = [
    `OpenZiti-compatible controller listening on https://${env.HOST ?? '0.0.0.0'}:${boundPort}`,
    `  versions:        behaves as OpenZiti controller ${config.version} (what /version reports); API contract: edge-api spec ${EDGE_API_SPEC_VERSION}`,
    `  client API:      ${base}/edge/client/v1`,
    `  management API:  ${base}/edge/management/v1`,
    `  health:          ${base}/health-checks`,
  ];
  if (metricsPort !== undefined) lines.push(`  metrics:         http://${config.metricsHost}:${metricsPort}/metrics`);
  else if (config.metricsEnabled) lines.push(`  metrics:         ${base}/metrics`);
  lines.push(
    `  root CA SHA-256: ${new NodeX509(bootstrap.pki.root.pem).fingerprint256}`,
    `  trust the CA:    curl -sk ${base}/.well-known/est/cacerts | base64 -d | openssl pkcs7 -inform DER -print_certs -out ca.pem`,
  );
  const created = bootstrap.createdAdmin;
  if (created?.generatedPassword) {
    lines.push(`  default admin:   ${created.username} / ${created.generatedPassword}   (shown once; keep it)`);
  } else if (created) {
    lines.push(`  default admin:   ${created.username}, password from ADMIN_PASSWORD`);
  } else if (env.ADMIN_PASSWORD) {
    lines.push(`  default admin:   exists already; ADMIN_PASSWORD is ignored (it only seeds the first start)`);
  } else {
    lines.push(`  default admin:   exists already`);
  }
  if (!created) lines.push(`  lost password:   npm run admin -- reset-password   (safe while the controller runs)`);
  lines.push(
    `  log in:          curl --cacert ca.pem -H 'content-type: application/json' -d '{"username":"${username}","password":"<password>"}' '${base}/edge/client/v1/authenticate?method=password'`,
    `                   (send the returned token as the zt-session header; README.md walks through it)`,
    `  stop:            Ctrl-C or SIGTERM (in-flight requests get ${SHUTDOWN_GRACE_MS / 1000} s)`,
  );
  return lines.join('\n');
}

/** The data directory must exist (libSQL does not create it) and be readable and writable. */
function usableDataDir(dataDir: string, embedded: boolean): void {
  try {
    mkdirSync(dataDir, { recursive: true });
    accessSync(dataDir, fsConstants.R_OK | fsConstants.W_OK | fsConstants.X_OK);
    for (const file of [join(dataDir, 'controller.secret'), ...(embedded ? [join(dataDir, 'controller.db')] : [])]) {
      if (existsSync(file)) accessSync(file, fsConstants.R_OK | (file.endsWith('.db') ? fsConstants.W_OK : 0));
    }
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === 'EACCES' || err.code === 'EPERM' ? 'permission denied' : err.code === 'ENOTDIR' || err.code === 'EEXIST' ? 'not a directory' : (err.code ?? err.message);
    throw new StartupError(`cannot use the data directory ${dataDir}${err.path && err.path !== dataDir ? ` (${err.path})` : ''}: ${why}; fix its permissions or set DATA_DIR`);
  }
}

/** `ZITI_METRICS_PORT`: the Prometheus exposition alone, in plain HTTP, on its own (by default loopback) port. */
function listenMetrics(metrics: PrometheusMetrics, host: string, port: number): Promise<HttpServer> {
  const server = createHttpServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(req.method === 'HEAD' ? undefined : metrics.render());
  });
  return new Promise((resolveServer, rejectServer) => {
    server.once('error', (e: NodeJS.ErrnoException) => rejectServer(listenError(e, host, port, 'ZITI_METRICS_PORT')));
    server.listen(port, host, () => resolveServer(server));
  });
}

function listenError(e: NodeJS.ErrnoException, host: string, port: number, setting = 'PORT'): Error {
  if (e.code === 'EADDRINUSE') return new StartupError(`cannot listen on ${host}:${port}: the port is in use; stop the other process or set ${setting}`);
  if (e.code === 'EACCES') return new StartupError(`cannot listen on ${host}:${port}: permission denied; choose a ${setting} above 1023`);
  if (e.code === 'EADDRNOTAVAIL') return new StartupError(`cannot listen on ${host}:${port}: no such local address; check ${setting === 'PORT' ? 'HOST' : 'ZITI_METRICS_HOST'}`);
  return new StartupError(`cannot listen on ${host}:${port}: ${e.code ?? e.message}`);
}

/**
 * Stop accepting; idle keep-alive connections are closed at once and the others as soon as their
 * response is sent; whatever is still open after `graceMs` is dropped. Then the store is closed.
 */
function closeGracefully(server: ServerType, store: { close(): void }, graceMs: number): Promise<void> {
  const https = server as ServerType & { closeIdleConnections?: () => void; closeAllConnections?: () => void };
  return new Promise<void>((done) => {
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearInterval(idle);
      clearTimeout(force);
      store.close();
      done();
    };
    server.close(finish);
    https.closeIdleConnections?.();
    const idle = setInterval(() => https.closeIdleConnections?.(), 50);
    const force = setTimeout(() => https.closeAllConnections?.(), graceMs);
  });
}

/**
 * Transport limits of the HTTPS server, chosen rather than inherited (README, "Transport limits"):
 * - request line and headers at most 16 KiB together (431 beyond);
 * - the headers must arrive within 10 s, the whole request (body capped at 1 MiB) within 30 s (408), checked
 *   every second, so a client dripping bytes holds a connection for seconds, not minutes;
 * - idle keep-alive connections close after 5 s.
 */
export const TRANSPORT_LIMITS = {
  maxHeaderSize: 16 * 1024,
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 1_000,
} as const;

const TRANSPORT_ERRORS: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  ERR_HTTP_HEADERS_TIMEOUT: 'REQUEST_TIMEOUT',
};

/**
 * Requests Node refuses before the app sees them (oversized headers, malformed HTTP, timeouts) are answered
 * in the JSON error envelope, like every other error, and the connection is closed.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // A peer that went away gets nothing; neither does a socket whose current response has started (as Node does).
  const current = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || current?.headersSent) {
    socket.destroy();
    return;
  }
  const code = TRANSPORT_ERRORS[error.code ?? ''] ?? 'MALFORMED_REQUEST';
  const [status, message] = ERROR_CATALOGUE[code];
  const body = JSON.stringify({ error: { code, message, requestId: shortId() }, meta: ERROR_META });
  const reason = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }[status as 400 | 408 | 431] ?? 'Bad Request';
  socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

const NO_BODY = new Uint8Array(0);

/** What `@hono/node-server` hands the app as its bindings: the raw request and response. */
interface NodeBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
}

/**
 * A request's body read from the raw request, whole and bounded: a declared length over `maxBytes` is
 * refused before reading, and reading stops as soon as the bytes pass it. A request that declares neither
 * a length nor a chunked body has none (HTTP/1.1), whatever its method. Without the raw request (an
 * `app.fetch` from a test), the fetch `Request`'s own body.
 */
function readIncoming(bindings: NodeBindings | undefined, request: Request, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array> {
  const incoming = bindings?.incoming;
  if (!incoming) return readCapped(request.body, request.headers.get('content-length'), maxBytes, tooLarge);
  const declared = incoming.headers['content-length'];
  if (declared === undefined && incoming.headers['transfer-encoding'] === undefined) return Promise.resolve(NO_BODY);
  // A refused body stays on the wire, unread: the connection closes after the answer instead of reading on.
  const refuse = () => {
    if (bindings.outgoing) bindings.outgoing.shouldKeepAlive = false;
    return tooLarge();
  };
  if (declared !== undefined && Number(declared) > maxBytes) return Promise.reject(refuse());
  return new Promise((resolveBody, rejectBody) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const done = () => {
      incoming.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > maxBytes) {
        done();
        incoming.pause();
        rejectBody(refuse());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      const whole = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
      resolveBody(new Uint8Array(whole.buffer, whole.byteOffset, whole.byteLength));
    };
    const onError = (error: Error) => {
      done();
      rejectBody(error);
    };
    const onClose = () => {
      done();
      rejectBody(new Error('the client closed the connection before the body was read'));
    };
    incoming.on('data', onData).once('end', onEnd).once('error', onError).once('close', onClose);
  });
}

/** A request the Node adapter could not turn into a fetch Request, answered in the envelope. */
function requestErrorResponse(error: unknown): Response {
  const code: ErrorCode = error instanceof Error && error.name === 'RequestError' ? 'MALFORMED_REQUEST' : 'UNHANDLED';
  return errorResponse(new ApiError(code), shortId());
}

// PEM getters may be sync or async in the PKI module; the server options need plain strings.
function await_<T>(value: T | Promise<T>): T {
  if (value instanceof Promise) throw new Error('PKI PEM getters must be synchronous');
  return value;
}

/**
 * `npm start` runs this file in one process (node --import tsx): SIGINT/SIGTERM stop it gracefully and
 * exit 0; a second signal exits at once. Start-up failures print one line and exit 1.
 */
async function main(): Promise<void> {
  let controller: NodeController | undefined;
  let stopping: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = signal;
    // Whatever happens while closing, the process is gone shortly after the grace period.
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS + 400).unref();
    if (controller) void shutdown(controller, signal);
    // Still starting: shut down as soon as the start completes (see below).
  };
  // Installed before the start, so that a signal during start-up is never the default (abrupt) one.
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    controller = await startController(process.env, { banner: true });
  } catch (e) {
    console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
  if (stopping) await shutdown(controller, stopping);
}

async function shutdown(controller: NodeController, signal: NodeJS.Signals): Promise<never> {
  controller.deps.log.info('stopping', { signal, graceMs: SHUTDOWN_GRACE_MS });
  try {
    await controller.close(SHUTDOWN_GRACE_MS);
  } catch {
    process.exit(1);
  }
  controller.deps.log.info('stopped', { signal });
  process.exit(0);
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) void main();
