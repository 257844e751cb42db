#!/usr/bin/env node
// `npm run dev [-- wrangler dev options]`: the controller under workerd (wrangler dev) with a local D1.
// - Creates .dev.vars with a random CONTROLLER_SECRET and ADMIN_PASSWORD on first use (printed once)
//   and applies the migrations to the local D1.
// - Tells the worker the origin it really answers on: plain HTTP (wrangler dev's default; HTTPS with
//   --local-protocol https) on --port (default 8787), or ZITI_API_ADDRESS when set. apiBaseUrls and
//   enrollment JWTs carry that origin.
// - Starts offline without network stack traces: the Request.cf lookup and telemetry are off unless
//   set in the environment.
// - Runs wrangler in its own process group and, on SIGINT/SIGTERM/SIGHUP, stops that whole group
//   (wrangler, workerd, esbuild), forcing it after a few seconds.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

const wrangler = createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');
const args = process.argv.slice(2);

/** The value of `--name value` or `--name=value` among the user's wrangler options. */
function option(name) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) return args[i + 1];
    if (args[i].startsWith(name + '=')) return args[i].slice(name.length + 1);
  }
  return undefined;
}

const env = {
  ...process.env,
  CLOUDFLARE_CF_FETCH_ENABLED: process.env.CLOUDFLARE_CF_FETCH_ENABLED ?? 'false',
  WRANGLER_SEND_METRICS: process.env.WRANGLER_SEND_METRICS ?? 'false',
};

if (!existsSync('.dev.vars')) {
  const password = randomBytes(12).toString('base64url');
  writeFileSync('.dev.vars', `CONTROLLER_SECRET=${randomBytes(32).toString('base64url')}\nADMIN_PASSWORD=${password}\n`, { mode: 0o600 });
  console.log(`created .dev.vars; default admin: admin / ${password} (shown once; kept in .dev.vars)`);
}

const migrate = spawnSync(process.execPath, [wrangler, 'd1', 'migrations', 'apply', 'DB', '--local'], { stdio: 'inherit', env: { ...env, CI: 'true' } });
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

const port = option('--port') ?? '8787';
const scheme = option('--local-protocol') === 'https' ? 'https' : 'http';
const address = process.env.ZITI_API_ADDRESS || `localhost:${port}`;
const extra = ['--var', `ZITI_API_ADDRESS:${address}`, '--var', `ZITI_API_SCHEME:${process.env.ZITI_API_SCHEME || scheme}`];
// The dev session's hotkeys need the terminal, which a separate process group may not read.
if (option('--show-interactive-dev-session') === undefined && !args.includes('--show-interactive-dev-session')) extra.push('--show-interactive-dev-session=false');
console.log(`serving ${process.env.ZITI_API_SCHEME || scheme}://${address} (client API /edge/client/v1, management API /edge/management/v1); Ctrl-C stops it`);

const child = spawn(process.execPath, [wrangler, 'dev', ...extra, ...args], { stdio: ['ignore', 'inherit', 'inherit'], env, detached: true });

let stopping = false;
function stop(signal) {
  if (stopping) return;
  stopping = true;
  const group = (sig) => {
    try {
      process.kill(-child.pid, sig);
    } catch {
      // the group is gone already
    }
  };
  group(signal);
  // wrangler normally stops workerd within a second; never leave the tree behind.
  setTimeout(() => group('SIGKILL'), 4_000).unref();
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(signal));
child.on('exit', (code, signal) => {
  // Whatever wrangler left in its group goes with it.
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // nothing left
  }
  process.exit(stopping ? 0 : (code ?? (signal ? 1 : 0)));
});
