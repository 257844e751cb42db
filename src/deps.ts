import type { Config } from './config.js';
import type { RequestSession } from './http/session.js';
import type { Db } from './db/client.js';
import type { Metrics } from './observability/metrics.js';
import type { Pki } from './pki/types.js';

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Everything a request needs from its runtime, resolved once per process (Node) or isolate (Workers). */
export interface Deps {
  /** Reads and writes; on Workers, reads may be answered by a D1 read replica near the caller. */
  db: Db;
  /**
   * The primary, where `db` may lag (Workers with D1 read replication): a lookup that must see a row the
   * client was just given (a session token right after login) retries here on a miss. Absent: `db` is it.
   */
  primaryDb?: Db;
  config: Config;
  pki: Pki;
  log: Logger;
  /** Current time in Unix milliseconds; injectable so that tests can move the clock. */
  now(): number;
  /** Request, login and store counters (src/observability); absent means not recorded. */
  metrics?: Metrics;
  /** What the runtime and its store offer operators (`POST /database/snapshot`, background work); absent: nothing. */
  operations?: RuntimeOperations;
}

/** What `POST /database/snapshot` got from the store (docs/operations.md, "Snapshots"). */
export type SnapshotOutcome =
  /** A consistent copy of the embedded database, written next to it. */
  | { kind: 'file'; path: string }
  /** A point the platform can restore to (a D1 Time Travel bookmark). */
  | { kind: 'bookmark'; bookmark: string; restore: string }
  /** The store cannot be copied from here; `reason` tells the operator what the platform offers instead. */
  | { kind: 'unsupported'; reason: string };

/** Runtime-specific operations, provided by the entry files (they alone know the store behind `db`). */
export interface RuntimeOperations {
  snapshot(now: number): Promise<SnapshotOutcome>;
  /**
   * How long work deferred after a response may run here (Workers: `waitUntil` ends 30 s after the response);
   * undefined: as long as it needs (Node). Long operator jobs run in slices within it (ADR 0012).
   */
  backgroundBudgetMs?: number;
}

/**
 * What a service receives for one request, built by the router: the dependencies, the caller, the request id,
 * the client's address and a way to run work after the response. Services never see the HTTP framework.
 */
export interface ServiceContext {
  deps: Deps;
  /** The caller, when the request carried a valid `zt-session`. */
  caller: RequestSession | undefined;
  requestId: string;
  /** The caller's network address (computed on first use: only throttling and new sessions need it). */
  clientAddress(): string;
  /** Runs work after the response without delaying it. */
  defer(promise: Promise<unknown>): void;
  /** The request's `Authorization: Bearer` candidates (at most two): external JWTs, never session credentials. */
  bearerTokens(): string[];
}

/**
 * The TLS client certificate of a request, as the runtime hands it over. Node gives the whole chain
 * (leaf first, DER); Workers' mTLS gives only a verified SHA-1 fingerprint of the leaf.
 */
export interface ClientCertificate {
  chainDer: Uint8Array[];
  fingerprintSha1?: string;
}

/** What a runtime entry file provides to createApp. */
export interface Runtime {
  deps(env: unknown): Promise<Deps>;
  clientCertificate(request: Request, env: unknown): ClientCertificate | undefined;
  /**
   * Reads the request's body whole, refusing more than `maxBytes` with `tooLarge()`. Node reads the raw
   * request: a fetch `Request` body would make `@hono/node-server` build undici's `Request`, a web stream
   * and an `AbortSignal` first, which cost more than the read (~12 % of a certificate login under load),
   * and a GET body (`GET /current-identity/mfa/recovery-codes` takes its code from one), which a fetch
   * `Request` cannot carry, is read there too. Unset: the request's own body stream, which Workers hand
   * over for a GET as well when the client sent one.
   */
  readBody?(request: Request, env: unknown, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array>;
  /** Lets work finish after the response is sent (Workers' waitUntil); Node simply lets the promise run. */
  waitUntil(promise: Promise<unknown>, executionCtx: unknown): void;
  /**
   * Headers are added to a response by remaking it with one plain header object (`withHeaders`): set on
   * Node, where `@hono/node-server` writes such a response straight to the socket; unset on Workers,
   * whose native responses take `headers.set` more cheaply than a second response.
   */
  remakeForHeaders?: boolean;
}

