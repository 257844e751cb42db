/**
 * The Node entry as an operator runs it: a real process (`node --import tsx src/node.ts`, what
 * `npm start` execs), real signals, a real port and data directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'ziti-life-'));
  dirs.push(d);
  return d;
}

interface Running {
  child: ChildProcess;
  port: number;
  out: () => string;
  err: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** Spawns a command and resolves once the banner names the port (or rejects when it exits first). */
function launch(command: string, args: string[], env: Record<string, string>): Promise<Running> {
  const child = spawn(command, args, { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((res) => child.on('exit', (code, signal) => res({ code, signal, at: Date.now() })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 45 s:\n${out}\n${err}`)), 45_000);
    const onData = () => {
      const m = /listening on https:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve({ child, port: Number(m[1]), out: () => out, err: () => err, exited });
    };
    child.stdout!.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(Object.assign(new Error('exited before listening'), { out, err, exited }));
    });
  });
}

const startNode = (env: Record<string, string>) => launch(process.execPath, ['--import', 'tsx', 'src/node.ts'], env);

/** Runs the entry expecting it to fail at start; returns its exit code and output. */
async function failedStart(env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  try {
    const r = await startNode(env);
    r.child.kill('SIGKILL');
    throw new Error('it started');
  } catch (e) {
    const x = e as { out?: string; err?: string; exited?: Running['exited'] };
    if (!x.exited) throw e;
    return { code: (await x.exited).code, out: x.out ?? '', err: x.err ?? '' };
  }
}

function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, rejectUnauthorized: false, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('process life of the Node entry', () => {
  it('on SIGTERM stops accepting, finishes the request in flight, and exits 0 well within 2 s', async () => {
    const dir = tempDir();
    const s = await startNode({ DATA_DIR: dir, ADMIN_PASSWORD: 'first-password-1' });
    expect(await get(s.port, '/version')).toBe(200);

    // A login whose body is still arriving when the signal comes: it is in flight.
    const body = JSON.stringify({ username: 'admin', password: 'first-password-1' });
    const inFlight = new Promise<number>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: s.port, method: 'POST', path: '/edge/client/v1/authenticate?method=password', rejectUnauthorized: false, agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => req.end(body.slice(10)), 300);
    });
    await new Promise((r) => setTimeout(r, 100));
    const signalledAt = Date.now();
    s.child.kill('SIGTERM');
    expect(await inFlight).toBe(200);
    const exit = await s.exited;
    expect(exit.code).toBe(0);
    expect(exit.at - signalledAt).toBeLessThan(2_000);
    expect(s.out()).toContain('"message":"stopped"');
    await expect(get(s.port, '/version')).rejects.toThrow();

    // A later start with ADMIN_PASSWORD says the truth: it is ignored.
    const again = await startNode({ DATA_DIR: dir, ADMIN_PASSWORD: 'another-password-2' });
    expect(again.out()).toMatch(/default admin: +exists already; ADMIN_PASSWORD is ignored/);
    expect(again.out()).toContain('npm run admin -- reset-password');
    expect(again.out()).not.toContain('another-password-2');
    again.child.kill('SIGINT');
    expect((await again.exited).code).toBe(0);
  });

  it('prints one clear line and exits non-zero when the port is in use', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await failedStart({ DATA_DIR: tempDir(), PORT: String(port) });
      expect(r.code).toBe(1);
      expect(r.err.trim()).toBe(`error: cannot listen on 127.0.0.1:${port}: the port is in use; stop the other process or set PORT`);
    } finally {
      blocker.close();
    }
  });

  it('prints one clear line and exits non-zero when the data directory cannot be used', async () => {
    const file = join(tempDir(), 'not-a-directory');
    writeFileSync(file, 'x');
    const r = await failedStart({ DATA_DIR: file });
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/^error: cannot use the data directory .*not-a-directory: not a directory; fix its permissions or set DATA_DIR/);
  });

  it('`npm start` is the server itself: SIGTERM to the npm process stops the server within 2 s', async () => {
    const s = await launch('npm', ['start', '--silent'], { DATA_DIR: tempDir(), ADMIN_PASSWORD: 'first-password-1' });
    expect(await get(s.port, '/health-checks')).toBe(200);
    const signalledAt = Date.now();
    s.child.kill('SIGTERM');
    await s.exited;
    // The port closes with the server, not merely with npm.
    let closedAt = 0;
    while (!closedAt && Date.now() - signalledAt < 3_000) {
      try {
        await get(s.port, '/version');
        await new Promise((r) => setTimeout(r, 50));
      } catch {
        closedAt = Date.now();
      }
    }
    expect(closedAt).toBeGreaterThan(0);
    expect(closedAt - signalledAt).toBeLessThan(2_000);
  });
});
