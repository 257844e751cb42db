/**
 * The bench scenarios' cost per request inside the process: each scenario's requests go to the
 * controller through the Node adapter's own request listener (`@hono/node-server`'s, as the HTTPS server
 * calls it), as a Node `IncomingMessage` and `ServerResponse` with no socket under them (no TLS, no
 * network, no load generator), and the CPU time the process spends per request is printed. Quicker and
 * steadier than `npm run bench` for finding what a change does to a scenario; run it under
 * `node --cpu-prof` to profile one.
 *
 *   npm run bench:in-process -- [scenario name text] [requests per round]
 *   npm run bench:in-process -- "=current API session"      # that scenario only (exact name)
 *   SIZE=medium npm run bench:in-process -- "list services"
 *
 * The store is seeded once (through the bench's own seeders) into a directory kept in the system's
 * temporary directory, named after the size and this checkout, and reused by later runs.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { connect, createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { hashPassword } from '../src/auth/password.js';
import { floorApp } from './floor/app.js';
import { nativeFloorQuery } from './floor/native-query.js';
import { startController } from '../src/node.js';
import { Client, type ClientCert, type RequestSpec } from './http.js';
import { SIZES, type SizeName } from './model.js';
import { MGMT, SCENARIOS, Sessions, type ScenarioEnv } from './scenarios.js';
import { keptPagesSetting } from './runtimes/types.js';
import { seedModel, type SeededModel, type SqlStore, type SqlValue } from './seed.js';

const size = (process.env.SIZE ?? 'many-services') as SizeName;
if (!(size in SIZES)) throw new Error(`unknown SIZE ${size}`);
const only = process.argv[2] ?? '';
const perRound = Number(process.argv[3] ?? 1000);
const checkout = createHash('sha256').update(process.cwd()).digest('hex').slice(0, 8);
const dir = join(tmpdir(), `ziti-in-process-${size}-${checkout}`);
const modelFile = join(dir, 'model.json');
// Fixed, local-only credentials: this store never leaves the machine's temporary directory.
const PASSWORD = 'in-process-bench-password';
const fresh = !existsSync(modelFile);
mkdirSync(dir, { recursive: true, mode: 0o700 });

const controller = await startController(
  { DATA_DIR: dir, HOST: '127.0.0.1', PORT: '0', CONTROLLER_SECRET: 'in-process-bench-secret-0123456789', ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: 'in-process-admin-password', ZITI_LOG_LEVEL: 'silent', ...keptPagesSetting() },
  { logger: { info() {}, warn() {}, error: (m, f) => console.error(m, f) } },
);
const client = new Client({ origin: `https://127.0.0.1:${controller.port}`, ca: controller.bootstrap.pki.root.pem, servername: 'localhost' }, 8);
const seedClient = createClient({ url: `file:${join(dir, 'controller.db')}` });
const store: SqlStore = {
  async all(sql, args = []) {
    const rs = await seedClient.execute({ sql, args });
    return rs.rows.map((row) => Object.fromEntries(rs.columns.map((c, i) => [c, row[i]])));
  },
  async batch(statements) {
    await seedClient.batch(statements.map((s) => ({ sql: s.sql, args: s.args as SqlValue[] })), 'write');
  },
};
const sessions = new Sessions(client, store, PASSWORD);
let model: SeededModel;
if (fresh) {
  model = await seedModel(store, SIZES[size], await hashPassword(PASSWORD), async (admin) => ({ client, token: await sessions.token(admin, MGMT) }));
  writeFileSync(modelFile, JSON.stringify(model));
} else {
  model = JSON.parse(readFileSync(modelFile, 'utf8')) as SeededModel;
}
const env: ScenarioEnv = { size, model, password: PASSWORD, sessions, store };

/**
 * A request's client certificate, as the Node adapter hands it to the app: the server side of a real TLS
 * connection on loopback (the certificate presented in its handshake, to a listener with the controller's
 * TLS options), under the request's `IncomingMessage`, from whose socket the app reads the peer chain
 * (src/node.ts). The request itself does not travel over it. One connection per certificate, kept open.
 */
const peers = new Map<string, TLSSocket>();
const opened: TLSSocket[] = [];
const pki = controller.bootstrap.pki;
const tlsServer = createTlsServer({ key: pki.serverKeyPkcs8Pem(), cert: pki.serverChainPem(), requestCert: true, rejectUnauthorized: false });
tlsServer.listen(0, '127.0.0.1');
await once(tlsServer, 'listening');
async function peerSocket(tls: ClientCert): Promise<TLSSocket> {
  let socket = peers.get(tls.cert);
  if (!socket) {
    const accepted = once(tlsServer, 'secureConnection') as Promise<[TLSSocket]>;
    const port = (tlsServer.address() as { port: number }).port;
    const client = connect({ host: '127.0.0.1', port, servername: 'localhost', ca: pki.root.pem, cert: tls.cert, key: tls.key });
    await once(client, 'secureConnect');
    [socket] = await accepted;
    opened.push(client, socket);
    peers.set(tls.cert, socket);
  }
  return socket;
}

type Listener = ReturnType<typeof getRequestListener>;

/** Under requests without a client certificate: the adapter reads only `encrypted` (the URL's scheme) from it. */
const plainSocket = Object.assign(new Socket(), { encrypted: true });

/**
 * One request through `listener`, as the HTTPS server hands it over: the head and the whole body already
 * received. The answer is taken from the `ServerResponse` as the adapter writes it (head, then body).
 */
function send(listener: Listener, r: RequestSpec, socket: Socket): Promise<{ status: number; text: string }> {
  const request = new IncomingMessage(socket);
  request.method = r.method;
  request.url = r.path;
  const headers: Record<string, string> = { host: 'localhost' };
  for (const [name, value] of Object.entries(r.headers ?? {})) headers[name.toLowerCase()] = value;
  if (r.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(r.body));
    request.push(r.body);
  }
  request.headers = headers;
  request.rawHeaders = Object.entries(headers).flat();
  request.push(null);
  request.complete = true;
  const response = new ServerResponse(request);
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown) => {
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as string | Uint8Array));
  };
  return new Promise((resolve) => {
    Object.assign(response, {
      write(chunk: unknown) {
        keep(chunk);
        return true;
      },
      end(chunk?: unknown) {
        keep(chunk);
        resolve({ status: response.statusCode, text: Buffer.concat(chunks).toString('utf8') });
        return response;
      },
    });
    void listener(request, response);
  });
}

/** Sends the requests in turn, twice: the first round warms the JIT and the statement cache, the second is the figure. */
async function measure(name: string, listener: Listener, requests: RequestSpec[]): Promise<void> {
  for (const round of ['warm-up', 'measured']) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    let bytes = 0;
    let failed = '';
    const walls: number[] = [];
    for (let i = 0; i < perRound && !failed; i++) {
      const sent = performance.now();
      const r = requests[i % requests.length];
      const { status, text } = await send(listener, r, r.tls ? await peerSocket(r.tls) : plainSocket);
      walls.push(performance.now() - sent);
      bytes = text.length;
      if (status >= 300) failed = `${status} ${text.slice(0, 200)}`;
    }
    const used = process.cpuUsage(cpu);
    if (failed) console.log(`${name}: ${failed}`);
    else {
      walls.sort((a, b) => a - b);
      const at = (p: number) => (walls[Math.min(walls.length - 1, Math.floor(p * walls.length))] * 1000).toFixed(0);
      console.log(`${name} (${round}): ${((used.user + used.system) / perRound).toFixed(0)} µs CPU, ${(((performance.now() - started) * 1000) / perRound).toFixed(0)} µs wall per request (p50 ${at(0.5)}, p95 ${at(0.95)}, p99 ${at(0.99)}), ${bytes} bytes`);
    }
  }
}

// The read floor of `npm run bench` (a bare Hono app, one kept prepared read), measured the same way.
const floorStore = nativeFloorQuery(join(dir, 'controller.db'));
const floor = floorApp(floorStore.query);
await measure('floor (read)', getRequestListener(floor.fetch), model.identityIds.slice(0, 100).map((id) => ({ method: 'GET', path: `/__floor/read/${id}` })));

// As src/node.ts builds the HTTPS server's listener (its error handler only answers requests the adapter refuses).
const controllerListener = getRequestListener(controller.app.fetch);
for (const scenario of SCENARIOS) {
  if (!(only.startsWith('=') ? scenario.name === only.slice(1) : scenario.name.includes(only)) || (scenario.sizes && !scenario.sizes.includes(size))) continue;
  const built = await scenario.build(env);
  if (!Array.isArray(built)) {
    console.log(`${scenario.name}: skipped (${built.skip})`);
    continue;
  }
  await measure(scenario.name, controllerListener, built);
}
floorStore.close();
client.close();
for (const socket of opened) socket.destroy();
tlsServer.close();
seedClient.close();
await controller.close(0);
process.exit(0);
