/**
 * A controller started as its own process (`src/node.ts`, as `npm start` runs it), on loopback, for
 * the store's process-level checks (the crash test, two processes on one file) and the C SDK interop
 * run. Never asserts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpsRequest, Agent } from 'node:https';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface ControllerProcess {
  child: ChildProcess;
  port: number;
  /** stderr and stdout, for a failure message. */
  output(): string;
  exited: Promise<number | null>;
}

export interface Reply {
  status: number;
  body: any;
}

// Loopback only, against the controller's own certificate: the harness does not check the chain.
const agent = new Agent({ keepAlive: true, maxSockets: 64, rejectUnauthorized: false });

export function call(port: number, method: string, path: string, options: { body?: unknown; token?: string; timeoutMs?: number } = {}): Promise<Reply> {
  return new Promise((resolveReply, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: {
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          ...(options.token ? { 'zt-session': options.token } : {}),
        },
        timeout: options.timeoutMs ?? 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON: kept as text
          }
          resolveReply({ status: res.statusCode ?? 0, body });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** The first of `count` ports from `from` that is free on loopback right now (the project's test ports: 13200…13209). */
export async function freePort(from = 13200, count = 10): Promise<number> {
  for (let port = from; port < from + count; port++) {
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port in ${from}..${from + count - 1}`);
}

export function startControllerProcess(env: Record<string, string>): ControllerProcess {
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'src/node.ts')], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => void (out = (out + d.toString()).slice(-8_000)));
  child.stderr?.on('data', (d: Buffer) => void (out = (out + d.toString()).slice(-8_000)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, port: Number(env.PORT), output: () => out, exited };
}

/** Resolves when the controller answers `GET /version` with 200; rejects after `timeoutMs` or if it exits. */
export async function waitUntilServing(p: ControllerProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void p.exited.then(() => (gone = true));
  while (Date.now() < deadline) {
    if (gone) throw new Error(`controller exited during start:\n${p.output()}`);
    try {
      if ((await call(p.port, 'GET', '/edge/client/v1/version', { timeoutMs: 1_000 })).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`controller did not serve within ${timeoutMs} ms:\n${p.output()}`);
}

/** Stops the process: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopControllerProcess(p: ControllerProcess, graceMs = 3_000): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), graceMs);
  await p.exited;
  clearTimeout(timer);
}

export async function login(port: number, username: string, password: string): Promise<string> {
  const reply = await call(port, 'POST', '/edge/management/v1/authenticate?method=password', { body: { username, password } });
  if (reply.status !== 200) throw new Error(`login failed: ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
  return reply.body.data.token as string;
}

export function closeAgent(): void {
  agent.destroy();
}
