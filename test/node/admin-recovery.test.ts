/**
 * `npm run admin -- reset-password`: the real command in a child process, on a store that a running
 * app holds open at the same time, and the reset rule under concurrency.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/auth/password.js';
import { resetAdminPassword } from '../../src/recovery/service.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, MGMT } from '../helpers/client.js';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';
import { storeFixtures } from '../shared/auth-fixtures.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function admin(args: string[], env: Record<string, string>, stdin?: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env } }, (error, out, err) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out, err }),
    );
    if (stdin !== undefined) child.stdin!.end(stdin);
    else child.stdin!.end();
  });
}

let dir: string;
let t: NodeTestApp;
/** The admin's password as the last test left it. */
let current = ADMIN_PASSWORD;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ziti-admin-'));
  t = await createNodeTestApp({}, { dbFile: join(dir, 'controller.db') });
});
afterAll(() => {
  t?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function loginStatus(password: string, username = ADMIN_USERNAME): Promise<number> {
  const reply = await t.client.request(`${MGMT}/authenticate?method=password`, { body: { username, password } });
  return reply.status;
}

describe('npm run admin -- reset-password', () => {
  it('gives the default admin a generated password, printed once, while the store is in use; old password and sessions stop working', async () => {
    const oldSession = await t.client.login();
    const r = await admin(['reset-password'], { DATA_DIR: dir });
    expect(r.code).toBe(0);
    const printed = /new password: (\S+) {3}\(shown once\)/.exec(r.out);
    expect(printed).not.toBeNull();
    const password = printed![1];
    current = password;
    expect(password.length).toBeGreaterThanOrEqual(20);
    expect(await loginStatus(password)).toBe(200);
    expect(await loginStatus(ADMIN_PASSWORD)).toBe(401);
    expect((await t.client.get(`${MGMT}/current-identity`, oldSession)).status).toBe(401);
  });

  it('takes the password from stdin or ADMIN_PASSWORD without printing it, and lifts a lockout', async () => {
    const fx = storeFixtures(t.deps.db);
    const adminRow = await t.deps.db.query.identities.findFirst({ where: (i, { eq }) => eq(i.isDefaultAdmin, true) });
    expect(await loginStatus(current)).toBe(200);
    await fx.setDisabled(adminRow!.id, Date.now(), null);
    expect(await loginStatus(current)).toBe(401);

    const fromStdin = await admin(['reset-password', '--username', ADMIN_USERNAME, '--password-stdin'], { DATA_DIR: dir }, 'stdin-password-123\n');
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.out).not.toContain('stdin-password-123');
    expect(await loginStatus('stdin-password-123')).toBe(200);

    const fromEnv = await admin(['reset-password'], { DATA_DIR: dir, ADMIN_PASSWORD: 'env-password-456' });
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.out).not.toContain('env-password-456');
    expect(await loginStatus('env-password-456')).toBe(200);
  });

  it('refuses a password the auth policy refuses, an unknown admin, a missing store and bad usage, and changes nothing', async () => {
    const short = await admin(['reset-password', '--password-stdin'], { DATA_DIR: dir }, 'abc');
    expect(short.code).toBe(1);
    expect(short.err).toMatch(/^error: the new password is refused: password must be at least 5 characters long/);
    const nobody = await admin(['reset-password', '--username', 'nobody'], { DATA_DIR: dir, ADMIN_PASSWORD: 'whatever-123' });
    expect(nobody.code).toBe(1);
    expect(nobody.err).toContain('no admin logs in with the username "nobody"');
    const empty = mkdtempSync(join(tmpdir(), 'ziti-admin-empty-'));
    const missing = await admin(['reset-password'], { DATA_DIR: empty });
    rmSync(empty, { recursive: true, force: true });
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/^error: no store at .*controller\.db: start the controller once/);
    const usage = await admin(['frobnicate'], { DATA_DIR: dir });
    expect(usage.code).toBe(2);
    expect(usage.err).toContain('usage: npm run admin -- reset-password');
    // The last good password still works: nothing above changed the store.
    expect(await loginStatus('env-password-456')).toBe(200);
  });

  it('under 50 concurrent resets, exactly one of the passwords is the admin\'s', async () => {
    const passwords = Array.from({ length: 50 }, (_, i) => `concurrent-password-${i}`);
    const results = await Promise.allSettled(passwords.map((password) => resetAdminPassword(t.deps.db, { fallbackUsername: ADMIN_USERNAME, password, now: Date.now() })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(50);
    const row = await t.deps.db.query.authenticators.findFirst({ where: (a, { eq }) => eq(a.username, ADMIN_USERNAME) });
    const matches = (await Promise.all(passwords.map((p) => verifyPassword(p, row!.passwordHash)))).filter(Boolean);
    expect(matches).toHaveLength(1);
    const count = await t.deps.db.query.authenticators.findMany({ where: (a, { eq }) => eq(a.username, ADMIN_USERNAME) });
    expect(count).toHaveLength(1);
  });
});
