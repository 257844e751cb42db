/**
 * workerd under test, through Miniflare: the controller worker exactly as `wrangler deploy` would
 * upload it (the --dry-run bundle), with wrangler.toml's compatibility settings and bindings, and a
 * local D1 database persisted in a temporary directory. The floor worker (bench/floor/) is served by
 * the same workerd on `/__floor/*` and bound to the same D1 database.
 *
 * Migrations (drizzle/*.sql, the files `wrangler d1 migrations apply` uses) and seeding go through
 * the D1 binding, the same SQL path as on Node.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { Miniflare, Log, LogLevel, type MiniflareOptions, type WorkerOptions } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import type { BuiltWorker } from '../bundle.js';
import { Client, waitForOk, type Target } from '../http.js';
import { recordWorkerdChildren } from '../leftovers.js';
import { log } from '../log.js';
import type { SqlStore } from '../seed.js';
import { inspectorProfiler } from '../profile.js';
import { keptPagesSetting, type RuntimeUnderTest, type StartupFigures } from './types.js';

function d1Store(current: () => D1Database): SqlStore {
  return {
    async all(sql, args = []) {
      return (await current().prepare(sql).bind(...args).all<Record<string, unknown>>()).results;
    },
    async batch(statements) {
      const db = current();
      await db.batch(statements.map((s) => db.prepare(s.sql).bind(...s.args)));
    },
  };
}

/** The SQL of every migration in drizzle/, in journal order, one statement at a time. */
export function migrationStatements(projectRoot: string): string[] {
  const journal = JSON.parse(readFileSync(join(projectRoot, 'drizzle/meta/_journal.json'), 'utf8')) as { entries: { tag: string }[] };
  return journal.entries.flatMap((e) =>
    readFileSync(join(projectRoot, 'drizzle', `${e.tag}.sql`), 'utf8')
      .split('--> statement-breakpoint')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

export interface WorkerdBuilds {
  controller: BuiltWorker;
  floor: BuiltWorker;
}

const VERSION_PATH = '/edge/client/v1/version';

/** A port free on loopback now, for the inspector (Miniflare takes a number, not 0). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts workerd with the built workers; the local D1 database is persisted in `runDir`/d1. With
 * `profile`, both workers expose a DevTools inspector (through Miniflare's proxy) for `--profile`.
 */
export async function startWorkerdRuntime(projectRoot: string, runDir: string, builds: WorkerdBuilds, opts: { profile?: boolean } = {}): Promise<RuntimeUnderTest> {
  const persist = join(runDir, 'd1');
  mkdirSync(persist);
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(projectRoot, 'wrangler.toml'));
  const floorConfig = unstable_getMiniflareWorkerOptions(join(projectRoot, 'bench/floor/wrangler.toml')).workerOptions;
  let errorsShown = 0;
  const options: MiniflareOptions = {
    host: '127.0.0.1',
    port: 0,
    ...(opts.profile ? { inspectorPort: await freePort() } : {}),
    d1Persist: persist,
    // The placeholder request.cf: never fetch the real one from the network.
    cf: false,
    log: new Log(process.env.BENCH_WORKERD_LOG === "debug" ? LogLevel.DEBUG : LogLevel.WARN),
    handleStructuredLogs: ({ level, message }: { level: string; message: string }) => {
      if ((level === 'error' || level === 'warn') && errorsShown++ < 5) log(`workerd ${level}: ${message.slice(0, 400)}`);
    },
    workers: [
      {
        ...(workerOptions as WorkerOptions),
        name: 'controller',
        unsafeInspectorProxy: opts.profile,
        modules: true,
        scriptPath: builds.controller.main,
        modulesRoot: builds.controller.dir,
        bindings: {
          ...(workerOptions.bindings as Record<string, string>),
          // Random per run and never shown, as secrets would be on Workers.
          CONTROLLER_SECRET: randomBytes(24).toString('base64url'),
          ADMIN_PASSWORD: randomBytes(18).toString('base64url'),
          // As the Node controller's quiet logger: the per-request access line is not measured (docs/benchmarks.md).
          ZITI_LOG_LEVEL: 'warn',
          ...keptPagesSetting(),
        },
      } as WorkerOptions,
      {
        ...(floorConfig as WorkerOptions),
        name: 'floor',
        unsafeInspectorProxy: opts.profile,
        modules: true,
        scriptPath: builds.floor.main,
        modulesRoot: builds.floor.dir,
        routes: ['*/__floor/*'],
      } as WorkerOptions,
    ],
  };

  // First instance: apply migrations, let the controller bootstrap its store (PKI, default admin).
  let mf = new Miniflare(options);
  let url = await mf.ready;
  recordWorkerdChildren(runDir);
  let db = await mf.getD1Database('DB', 'controller');
  const store = d1Store(() => db);
  await store.batch(migrationStatements(projectRoot).map((sql) => ({ sql, args: [] })));
  // TLS is the platform's on Workers: a client certificate reaches the worker as the edge's verdict on it.
  const target = (u: URL): Target => ({ origin: `http://127.0.0.1:${u.port}`, clientCertVia: 'cf-tls-client-auth' });
  const probe = new Client(target(url), 1);
  await waitForOk(probe, { method: 'GET', path: VERSION_PATH }, 60_000);
  probe.close();
  await mf.dispose();

  // Second instance, timed: a fresh workerd on the prepared store, up to its first 2xx answer.
  const t0 = performance.now();
  mf = new Miniflare(options);
  url = await mf.ready;
  const listenMs = performance.now() - t0;
  recordWorkerdChildren(runDir);
  const client = new Client(target(url), 1);
  const firstResponseMs = await waitForOk(client, { method: 'GET', path: VERSION_PATH }, 60_000);
  client.close();
  const startup: StartupFigures = { listenMs, firstResponseMs, totalMs: listenMs + firstResponseMs };
  db = await mf.getD1Database('DB', 'controller');
  const inspector = opts.profile ? await mf.getInspectorURL() : undefined;

  return {
    name: 'workerd',
    target: target(url),
    floorTarget: target(url),
    store,
    startup,
    profilers: inspector && {
      controller: () => inspectorProfiler(new URL('/controller', inspector).href),
      floor: () => inspectorProfiler(new URL('/floor', inspector).href),
    },
    description: 'workerd (Miniflare), HTTP on loopback, local D1',
    async close() {
      await mf.dispose();
    },
  };
}
