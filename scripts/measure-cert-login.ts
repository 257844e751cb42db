/**
 * Certificate logins per second on the Node entry: starts the controller in a child process on a
 * loopback port with a temporary data directory, enrolls one identity with OTT, then runs a bounded
 * loop of `POST /authenticate?method=cert` over keep-alive mTLS connections and prints the rate and the
 * server process's CPU time (so the figure per core does not count the load generator).
 *
 *   npx tsx scripts/measure-cert-login.ts [--requests 4000] [--connections 16] [--seconds 20] [--port 13301] [--version-only]
 */
import 'reflect-metadata';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'node:https';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startController } from '../src/node.js';
import { x509 } from '../src/pki/x509.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const REQUESTS = arg('requests', 4000);
const CONNECTIONS = arg('connections', 16);
const SECONDS = arg('seconds', 20);
const PORT = arg('port', 13301);
const PATH = process.argv.includes('--version-only') ? '/version' : '/authenticate?method=cert';

function call(path: string, options: { method?: string; body?: string; headers?: Record<string, string>; agent?: Agent; key?: string; cert?: string }): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', servername: 'localhost', port: PORT, path, method: options.method ?? 'GET', headers: options.headers, rejectUnauthorized: false, agent: options.agent, key: options.key, cert: options.cert }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
        } catch {
          resolve({ status: res.statusCode ?? 0, body: text });
        }
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

if (process.argv.includes('--serve')) {
  // The server side: the controller alone in this process, reporting its CPU time on request.
  const dir = mkdtempSync(join(tmpdir(), 'ziti-certbench-'));
  const quiet = { info: () => undefined, warn: () => undefined, error: (m: string, f?: Record<string, unknown>) => console.error(m, f) };
  const controller = await startController({ DATA_DIR: dir, PORT: String(PORT), HOST: '127.0.0.1', ADMIN_PASSWORD: 'bench-admin-password', ZITI_AUTH_CONCURRENCY: '1000' }, { logger: quiet });
  let mark = process.cpuUsage();
  process.on('message', async (m: string) => {
    if (m === 'mark') {
      mark = process.cpuUsage();
      process.send!('marked');
    } else if (m === 'cpu') {
      const d = process.cpuUsage(mark);
      process.send!({ cpuSeconds: (d.user + d.system) / 1e6 });
    } else if (m === 'stop') {
      await controller.close();
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }
  });
  process.send!('ready');
} else {
  const server = fork(fileURLToPath(import.meta.url), [...process.argv.slice(2), '--serve'], { execArgv: ['--import', 'tsx', ...(process.argv.includes('--prof') ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : [])] });
  const ask = <T>(message: string, answer?: (m: unknown) => boolean) =>
    new Promise<T>((resolve) => {
      const on = (m: unknown) => {
        if (!answer || answer(m)) {
          server.off('message', on);
          resolve(m as T);
        }
      };
      server.on('message', on);
      if (message) server.send(message);
    });
  await ask('', (m) => m === 'ready');
  try {
    const json = { 'content-type': 'application/json' };
    const admin = (await call('/edge/management/v1/authenticate?method=password', { method: 'POST', headers: json, body: JSON.stringify({ username: 'admin', password: 'bench-admin-password' }) })).body.data.token;
    const created = await call('/edge/management/v1/identities', { method: 'POST', headers: { ...json, 'zt-session': admin }, body: JSON.stringify({ name: 'bench-device', isAdmin: false, type: 'Device', enrollment: { ott: true } }) });
    const id = created.body.data.id;
    const token = (await call(`/edge/management/v1/identities/${id}`, { headers: { 'zt-session': admin } })).body.data.enrollment.ott.token;
    const keys = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: `CN=${id}`, keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } });
    const enrolled = await call(`/edge/client/v1/enroll?method=ott&token=${token}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: csr.toString('pem') });
    const cert: string = enrolled.body.data.cert;
    const key = x509.PemConverter.encode((await crypto.subtle.exportKey('pkcs8', keys.privateKey)) as ArrayBuffer, 'PRIVATE KEY');

    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS, key, cert, rejectUnauthorized: false });
    const body = JSON.stringify({ sdkInfo: { type: 'bench', version: '1' } });
    // Warm-up: every connection's handshake and the first verification of the certificate.
    await Promise.all(Array.from({ length: CONNECTIONS }, () => call('/authenticate?method=cert', { method: 'POST', headers: json, body, agent })));

    let sent = 0;
    let ok = 0;
    let failed = 0;
    const deadline = Date.now() + SECONDS * 1000;
    await ask('mark', (m) => m === 'marked');
    const start = performance.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (sent < REQUESTS && Date.now() < deadline) {
          sent++;
          const r = await call(PATH, { method: PATH === '/version' ? 'GET' : 'POST', headers: json, body: PATH === '/version' ? undefined : body, agent });
          if (r.status === 200) ok++;
          else failed++;
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    const { cpuSeconds } = await ask<{ cpuSeconds: number }>('cpu', (m) => typeof m === 'object' && m !== null);
    agent.destroy();
    console.log(
      JSON.stringify({
        logins: ok,
        failed,
        seconds: Number(seconds.toFixed(2)),
        loginsPerSecond: Math.round(ok / seconds),
        serverCpuSeconds: Number(cpuSeconds.toFixed(2)),
        perServerCpuSecond: Math.round(ok / cpuSeconds),
        connections: CONNECTIONS,
        cores: cpus().length,
        path: PATH,
      }),
    );
  } finally {
    server.send('stop');
  }
}
