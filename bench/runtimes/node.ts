/**
 * Node.js under test: the real HTTPS server of `startController` (own PKI, libSQL file) in this
 * process, and the floor as a tiny HTTPS Hono server on the same file with the same certificate,
 * reading through a prepared statement of the native driver kept across requests (the fastest read
 * the platform allows). Statements are counted with the store's query logger, which the native
 * driver calls for batched statements too.
 */
import { createServer as createHttpsServer } from 'node:https';
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createClient, type Client as LibsqlClient } from '@libsql/client';
import { startController } from '../../src/node.js';
import type { Logger } from '../../src/deps.js';
import { floorApp } from '../floor/app.js';
import { nativeFloorQuery } from '../floor/native-query.js';
import { Client, waitForOk, type Target } from '../http.js';
import { log } from '../log.js';
import type { SqlStore, SqlValue } from '../seed.js';
import { keptPagesSetting, statementKind, type RuntimeUnderTest, type StatementCounter } from './types.js';

/** The controller's own log lines: errors are shown (a few), the rest dropped. */
function quietLogger(): Logger {
  let shown = 0;
  const show = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    if (shown++ < 5) log(`controller ${level}: ${message} ${JSON.stringify(fields ?? {}).slice(0, 400)}`);
  };
  return { info: () => {}, warn: show('warn'), error: show('error') };
}

function libsqlStore(client: LibsqlClient): SqlStore {
  return {
    async all(sql, args = []) {
      const rs = await client.execute({ sql, args });
      return rs.rows.map((row) => Object.fromEntries(rs.columns.map((c, i) => [c, row[i]])));
    },
    async batch(statements) {
      await client.batch(statements.map((s) => ({ sql: s.sql, args: s.args as SqlValue[] })), 'write');
    },
  };
}

/** Starts the controller with its data in `runDir`/node. */
export async function startNodeRuntime(runDir: string): Promise<RuntimeUnderTest> {
  const dataDir = join(runDir, 'node');
  mkdirSync(dataDir);
  let counts: { reads: number; writes: number } | undefined;
  const count = (sql: string) => {
    if (!counts) return;
    const kind = statementKind(sql);
    if (kind === 'read') counts.reads++;
    else if (kind === 'write') counts.writes++;
  };
  const statements: StatementCounter = {
    async during(work) {
      const counted = (counts = { reads: 0, writes: 0 });
      try {
        await work();
      } finally {
        counts = undefined;
      }
      return counted;
    },
  };

  const started = performance.now();
  const controller = await startController(
    {
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: '0',
      // Random per run and never shown: the bench logs in as seeded users, not as the default admin.
      CONTROLLER_SECRET: randomBytes(24).toString('base64url'),
      ADMIN_USERNAME: 'admin',
      ADMIN_PASSWORD: randomBytes(18).toString('base64url'),
      // `ZITI_SERVICE_PAGE_CACHE_MB=0 npm run bench` measures the service pages made afresh (docs/benchmarks.md).
      ...keptPagesSetting(),
    },
    { logger: quietLogger(), queryLogger: { logQuery: (sql) => count(sql) } },
  );
  const listenMs = performance.now() - started;
  const pki = controller.bootstrap.pki;
  const target: Target = { origin: `https://127.0.0.1:${controller.port}`, ca: pki.root.pem, servername: 'localhost' };
  const probe = new Client(target, 1);
  const firstResponseMs = await waitForOk(probe, { method: 'GET', path: '/edge/client/v1/version' }, 30_000);
  probe.close();

  // Seeding and setup write through their own connection, so they are not counted. The controller's
  // native driver logs every statement it runs, batched ones included (src/db/native.ts).
  const dbUrl = pathToFileURL(join(dataDir, 'controller.db')).href;
  const seedClient = createClient({ url: dbUrl });
  // The honest floor: a prepared statement of the native driver, prepared once and kept.
  const floorStore = nativeFloorQuery(join(dataDir, 'controller.db'));
  // The certificate floor: OpenSSL verifies the client chain against the controller's root in the
  // handshake (`ca` below); the verified leaf is read from the socket and hashed once per connection,
  // as the controller reads its peer chain once per connection (src/node.ts).
  const floorPeers = new WeakMap<TLSSocket, string | null>();
  const fingerprint = (socket: TLSSocket | undefined): string | undefined => {
    if (!socket) return undefined;
    let known = floorPeers.get(socket);
    if (known === undefined) {
      const leaf = socket.authorized ? socket.getPeerCertificate() : undefined;
      known = leaf?.raw ? createHash('sha1').update(leaf.raw).digest('hex') : null;
      floorPeers.set(socket, known);
    }
    return known ?? undefined;
  };
  const floor = floorApp(floorStore.query, { run: floorStore.run, runAll: floorStore.runAll, fingerprint: (c) => fingerprint((c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket as TLSSocket | undefined) });
  const floorServer = await new Promise<ServerType>((resolve) => {
    const s = serve(
      {
        fetch: floor.fetch,
        port: 0,
        hostname: '127.0.0.1',
        createServer: createHttpsServer,
        // Client certificates requested as the controller requests them, and verified against its root.
        serverOptions: { key: pki.serverKeyPkcs8Pem(), cert: pki.serverChainPem(), requestCert: true, rejectUnauthorized: false, ca: pki.root.pem },
      },
      () => resolve(s),
    );
  });
  const floorPort = (floorServer.address() as AddressInfo).port;

  return {
    name: 'node',
    target,
    floorTarget: { ...target, origin: `https://127.0.0.1:${floorPort}` },
    store: libsqlStore(seedClient),
    startup: { listenMs, firstResponseMs, totalMs: listenMs + firstResponseMs },
    statements,
    description: `Node ${process.versions.node}, HTTPS (own PKI), libSQL file (native driver; floor: a kept prepared statement)`,
    async close() {
      await new Promise<void>((r) => floorServer.close(() => r()));
      floorStore.close();
      seedClient.close();
      // server.close() waits for keep-alive connections: the load generator has closed its agents.
      const closing = controller.close();
      (controller.server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      await closing;
    },
  };
}
