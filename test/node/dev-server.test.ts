/**
 * `npm run dev` (scripts/dev.mjs) for real: wrangler dev and workerd on a random port, in a scratch
 * directory (its own wrangler.toml pointing at this project, .dev.vars and local D1), so that the
 * project's own .dev.vars and .wrangler/ are untouched.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The processes working in `dir`: the dev script, wrangler, esbuild and workerd all do. */
function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) === dir) pids.push(Number(entry));
    } catch {
      // gone, or not ours to inspect
    }
  }
  return pids;
}

describe('npm run dev', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ziti-dev-')));
  afterAll(() => {
    for (const pid of processesIn(dir)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('advertises the plain-HTTP origin it serves on --port, and SIGTERM stops wrangler and workerd together', async () => {
    writeFileSync(
      join(dir, 'wrangler.toml'),
      [
        'name = "ziti-edge-controller-dev-test"',
        `main = "${join(root, 'src/worker.ts')}"`,
        'compatibility_date = "2026-04-26"',
        '[vars]',
        'ADMIN_USERNAME = "admin"',
        '[[d1_databases]]',
        'binding = "DB"',
        'database_name = "ziti-controller"',
        'database_id = "00000000-0000-0000-0000-000000000000"',
        `migrations_dir = "${join(root, 'drizzle')}"`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    const inspector = await freePort();
    const child = spawn(process.execPath, [join(root, 'scripts/dev.mjs'), '--port', String(port), '--ip', '127.0.0.1', '--inspector-port', String(inspector)], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    let version: any;
    for (const deadline = Date.now() + 90_000; Date.now() < deadline && !version; ) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/version`);
        version = await res.json();
      } catch {
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    expect(version, out).toBeDefined();
    expect(version.data.apiVersions['edge-client'].v1.apiBaseUrls).toEqual([`http://localhost:${port}/edge/client/v1`]);
    expect(out).toContain(`serving http://localhost:${port}`);
    // Offline or not, no network stack trace from the Request.cf download.
    expect(out).not.toContain('Unable to fetch the `Request.cf` object');

    // The dev script, wrangler and workerd (at least) are running in the scratch directory.
    expect(processesIn(dir).length).toBeGreaterThanOrEqual(3);
    const signalledAt = Date.now();
    process.kill(child.pid!, 'SIGTERM');
    expect(await exited).toBe(0);
    // The dev script exits once wrangler has; nothing of the tree is left, and the port is closed.
    expect(Date.now() - signalledAt).toBeLessThan(6_000);
    // What the script SIGKILLed on its way out may take a moment to leave /proc (seen once under load).
    for (const deadline = Date.now() + 2_000; processesIn(dir).length > 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    expect(processesIn(dir)).toEqual([]);
    await expect(fetch(`http://127.0.0.1:${port}/version`)).rejects.toThrow();
  }, 150_000);
});
