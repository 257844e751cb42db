#!/usr/bin/env node
// `npm run dev`: the controller under workerd (wrangler dev) with a local D1 database.
// Creates .dev.vars with a random CONTROLLER_SECRET and ADMIN_PASSWORD on first use (printed once),
// applies the migrations to the local D1, then starts wrangler dev.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

if (!existsSync('.dev.vars')) {
  const password = randomBytes(12).toString('base64url');
  writeFileSync('.dev.vars', `CONTROLLER_SECRET=${randomBytes(32).toString('base64url')}\nADMIN_PASSWORD=${password}\n`, { mode: 0o600 });
  console.log(`created .dev.vars; default admin: admin / ${password} (shown once)`);
}
const run = (args, env = {}) => {
  const r = spawnSync('npx', args, { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
run(['wrangler', 'd1', 'migrations', 'apply', 'DB', '--local'], { CI: 'true' });
run(['wrangler', 'dev', ...process.argv.slice(2)]);
