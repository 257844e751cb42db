/**
 * Robustness probes (issue 10): lockout bursts, login racing a disable, concurrent authenticator creates,
 * orphans, nesting depth, secret echo, NUL names, expired-session pile-up, timing under a lockout policy,
 * then transport, forwarding-header and CORS probes against a real HTTPS server on loopback.
 *
 *   npx tsx scripts/probe-robustness.ts [--port 13000] [--quick]
 *
 * Every loop is bounded in count and time. Prints one JSON object of figures.
 */
import 'reflect-metadata';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { count, eq, lt } from 'drizzle-orm';
import { apiSessions, authenticators, identities } from '../src/db/schema/index.js';
import { startController } from '../src/node.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, CLIENT, MGMT } from '../test/helpers/client.js';
import { createNodeTestApp } from '../test/helpers/node-app.js';
import { storeFixtures, unique } from '../test/shared/auth-fixtures.js';

const args = process.argv.slice(2);
const PORT = Number(args[args.indexOf('--port') + 1] || 13000) || 13000;
const QUICK = args.includes('--quick');
const out: Record<string, unknown> = {};

// Counts PBKDF2 derivations: each is one password hash checked.
let derivations = 0;
const subtle = crypto.subtle;
const deriveBits = subtle.deriveBits.bind(subtle);
(subtle as { deriveBits: typeof subtle.deriveBits }).deriveBits = (...a: Parameters<typeof subtle.deriveBits>) => {
  derivations++;
  return deriveBits(...a);
};

async function inProcess() {
  const t = await createNodeTestApp();
  const f = storeFixtures(t.deps.db);
  const c = t.client;
  let admin = await c.login();
  const login = (username: string, password: string) => c.request(`${CLIENT}/authenticate?method=password`, { body: { username, password } });

  // 1. Parallel guessing against maxAttempts 3.
  const policy = await f.createAuthPolicy({ updbMaxAttempts: 3, updbLockoutDurationMinutes: 5 });
  const bursts = { bursts: 0, sizes: [] as number[], hashesPerBurst: [] as number[], lockedBursts: 0, tokensInLockedBursts: 0, tokensWorkingAfterLock: 0 };
  for (const size of QUICK ? [64] : [20, 50, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64]) {
    const username = unique('burst');
    const { identityId } = await f.createUser({ username, password: 'right-password', authPolicyId: policy });
    const before = derivations;
    const right = Math.floor(Math.random() * size);
    const replies = await Promise.all(Array.from({ length: size }, (_, i) => login(username, i === right ? 'right-password' : `wrong-${i}`)));
    bursts.bursts++;
    bursts.sizes.push(size);
    bursts.hashesPerBurst.push(derivations - before);
    const locked = (await t.deps.db.select({ d: identities.disabledAt }).from(identities).where(eq(identities.id, identityId)))[0]?.d !== null;
    const token = replies[right].status === 200 ? (replies[right].body.data.token as string) : undefined;
    if (locked) {
      bursts.lockedBursts++;
      if (token) {
        bursts.tokensInLockedBursts++;
        t.advance(6 * 60_000);
        if ((await c.get(`${CLIENT}/current-api-session`, token)).status === 200) bursts.tokensWorkingAfterLock++;
      }
    }
  }
  out.lockoutBursts = bursts;
  admin = await c.login();

  // 2. A login racing an admin disable.
  const race = { rounds: 0, sessionsSurvivingDisable: 0, workingAfterEnable: 0 };
  for (let i = 0; i < (QUICK ? 5 : 20); i++) {
    const username = unique('race');
    const { identityId } = await f.createUser({ username, password: 'right-password' });
    const pending = login(username, 'right-password');
    await new Promise((r) => setTimeout(r, 5));
    await c.request(`${MGMT}/identities/${identityId}/disable`, { token: admin, body: { durationMinutes: 0 } });
    const reply = await pending;
    race.rounds++;
    if ((await f.sessionCount(identityId)) > 0) race.sessionsSurvivingDisable++;
    await c.request(`${MGMT}/identities/${identityId}/enable`, { token: admin, method: 'POST' });
    if (reply.status === 200 && (await c.get(`${CLIENT}/current-api-session`, reply.body.data.token)).status === 200) race.workingAfterEnable++;
  }
  out.loginRacingDisable = race;

  // 3. 50 concurrent updb creates for one identity.
  const creates: number[] = [];
  for (let run = 0; run < (QUICK ? 1 : 3); run++) {
    const id = (await c.request(`${MGMT}/identities`, { token: admin, body: { name: unique('multi'), type: 'User', isAdmin: false } })).body.data.id as string;
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => c.request(`${MGMT}/authenticators`, { token: admin, body: { method: 'updb', identityId: id, username: unique(`multi${i}`), password: 'some-password' } })),
    );
    creates.push((await t.deps.db.select({ n: count() }).from(authenticators).where(eq(authenticators.identityId, id)))[0].n);
  }
  out.updbPerIdentityAfter50Creates = creates;

  // 4. Authenticators created while their identity is deleted.
  let orphans = 0;
  const orphanRounds = QUICK ? 5 : 20;
  for (let i = 0; i < orphanRounds; i++) {
    const id = (await c.request(`${MGMT}/identities`, { token: admin, body: { name: unique('orphan'), type: 'User', isAdmin: false } })).body.data.id as string;
    const create = c.request(`${MGMT}/authenticators`, { token: admin, body: { method: 'updb', identityId: id, username: unique('orphan'), password: 'some-password' } });
    await new Promise((r) => setTimeout(r, 3));
    await c.request(`${MGMT}/identities/${id}`, { token: admin, method: 'DELETE' });
    await create;
    orphans += (await t.deps.db.select({ n: count() }).from(authenticators).where(eq(authenticators.identityId, id)))[0].n;
  }
  out.orphans = `${orphans} of ${orphanRounds}`;

  // 5. Nesting depth: the smallest depth (doubling search) that is not a 4xx.
  const depthStatus = async (path: string, depth: number, token?: string) => (await c.request(path, { token, raw: '['.repeat(depth) + ']'.repeat(depth), headers: { 'content-type': 'application/json' } })).status;
  for (const [label, path, token] of [
    ['authenticate', `${CLIENT}/authenticate?method=password`, undefined],
    ['createIdentity', `${MGMT}/identities`, admin],
  ] as const) {
    let first500: number | null = null;
    for (let depth = 100; depth <= 400_000; depth *= 2) {
      if ((await depthStatus(path, depth, token)) >= 500) {
        first500 = depth;
        break;
      }
    }
    out[`nesting500From_${label}`] = first500 ?? 'none up to 400000';
  }
  const objectDepth = 5000;
  const nestedObject = '{"tags":'.repeat(objectDepth) + '1' + '}'.repeat(objectDepth);
  out.nestedObjectTags5000 = (await c.request(`${MGMT}/identities`, { token: admin, raw: nestedObject, headers: { 'content-type': 'application/json' } })).status;
  const bigArray = JSON.stringify(Array.from({ length: 120_000 }, (_, i) => i % 10));
  const reflected = await c.request(`${CLIENT}/authenticate?method=password`, { raw: bigArray, headers: { 'content-type': 'application/json' } });
  out.bigArrayBody = { bodyBytes: bigArray.length, status: reflected.status, replyBytes: reflected.text.length };

  // 6. Secret echo.
  const echo = await c.request(`${CLIENT}/authenticate?method=password`, { body: [{ username: 'someone', password: 'Echo-Secret-123' }] });
  out.passwordEchoInArrayBody = { status: echo.status, echoed: echo.text.includes('Echo-Secret-123') };

  // 7. NUL and control characters in names and usernames.
  const nul = [];
  for (const name of ['nul\u0000A', 'nul\u0000B', 'nul', 'bell\u0007', 'x'.repeat(1 << 20)]) {
    nul.push((await c.request(`${MGMT}/identities`, { token: admin, body: { name, type: 'User', isAdmin: false } })).status);
  }
  out.nulNameStatuses = nul;
  const user = (await c.request(`${MGMT}/identities`, { token: admin, body: { name: unique('nuluser'), type: 'User', isAdmin: false } })).body.data.id;
  out.nulUsernameStatus = (await c.request(`${MGMT}/authenticators`, { token: admin, body: { method: 'updb', identityId: user, username: 'admin\u0000x', password: 'some-password' } })).status;
  out.hugeTagStatus = (await c.request(`${MGMT}/identities`, { token: admin, body: { name: unique('bigtag'), type: 'User', isAdmin: false, tags: { big: 'x'.repeat(1000 * 1000) } } })).status;

  // 8. Expired sessions against the login rate: 5,000 expired rows, 120 logins over 120 simulated seconds.
  const { identityId: sweeper, authenticatorId } = await f.createUser({ username: unique('sweep'), password: 'right-password' });
  const old = t.deps.now() - 2 * 3600_000;
  const rows = Array.from({ length: 5000 }, (_, i) => ({ id: `expired${i}`, createdAt: old, updatedAt: old, tags: '{}', tokenHash: crypto.randomUUID(), identityId: sweeper, authenticatorId, lastActivityAt: old }));
  for (let i = 0; i < rows.length; i += 500) await t.deps.db.insert(apiSessions).values(rows.slice(i, i + 500));
  for (let i = 0; i < 120; i++) {
    await c.login();
    t.advance(1000);
  }
  const cutoff = t.deps.now() - t.deps.config.sessionTimeoutSeconds * 1000;
  out.expiredRowsAfter120LoginsOver120s = (await t.deps.db.select({ n: count() }).from(apiSessions).where(lt(apiSessions.lastActivityAt, cutoff)))[0].n;

  // 9. Timing: wrong password (lockout policy) vs unknown user, in alternating order, after a warm-up.
  const timingPolicy = await f.createAuthPolicy({ updbMaxAttempts: 1000, updbLockoutDurationMinutes: 5 });
  let timed = '';
  const diffs: number[] = [];
  const time = async (fn: () => Promise<unknown>) => {
    const a = performance.now();
    await fn();
    return performance.now() - a;
  };
  for (let i = 0; i < (QUICK ? 40 : 160); i++) {
    // A fresh user every few pairs keeps the per-username failure throttle (10 per 5 minutes) out of it.
    if (i % 8 === 0) {
      timed = unique('timed');
      await f.createUser({ username: timed, password: 'right-password', authPolicyId: timingPolicy });
    }
    const wrong = () => time(() => login(timed, `wrong-${i}`));
    const unknown = () => time(() => login(unique('nobody'), `wrong-${i}`));
    const [w, u] = i % 2 === 0 ? [await wrong(), await unknown()] : [await unknown(), await wrong()].reverse();
    if (i >= 16) diffs.push(w - u);
  }
  diffs.sort((x, y) => x - y);
  out.timingWrongMinusUnknownMs = { median: +diffs[diffs.length >> 1].toFixed(2), wrongSlowerPairs: `${diffs.filter((d) => d > 0).length} of ${diffs.length}` };
  t.close();
}

interface Raw {
  status: number | string;
  contentType?: string;
  envelope: boolean;
  ms: number;
}

/** One raw request over TLS; answers the status line, content type and whether the body is the error envelope. */
function raw(text: string, options: { dripMs?: number; limitMs?: number } = {}): Promise<Raw> {
  const started = Date.now();
  return new Promise((resolveRaw) => {
    const socket = tlsConnect({ host: '127.0.0.1', port: PORT, rejectUnauthorized: false });
    let data = '';
    let timer: NodeJS.Timeout | undefined;
    const done = (status?: number | string) => {
      clearInterval(timer);
      clearTimeout(limit);
      socket.destroy();
      const m = /^HTTP\/1\.1 (\d{3})/.exec(data);
      const body = data.split('\r\n\r\n').slice(1).join('\r\n\r\n');
      let envelope = false;
      try {
        const parsed = JSON.parse(body.trim().replace(/^[0-9a-f]+\r\n/, '').replace(/\r\n0\r\n\r\n$/, ''));
        envelope = typeof parsed?.error?.code === 'string' && typeof parsed?.error?.requestId === 'string' && typeof parsed?.meta === 'object';
      } catch {
        envelope = false;
      }
      resolveRaw({ status: m ? Number(m[1]) : (status ?? 'closed'), contentType: /content-type: ([^\r\n]+)/i.exec(data)?.[1], envelope, ms: Date.now() - started });
    };
    const limit = setTimeout(() => done('no answer within limit'), options.limitMs ?? 20_000);
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('end', () => done());
    socket.on('close', () => done());
    socket.on('error', () => done('error'));
    socket.on('secureConnect', () => {
      if (options.dripMs) {
        socket.write('GET /edge/client/v1/version HTTP/1.1\r\nHost: x\r\n');
        let n = 0;
        timer = setInterval(() => socket.write(`x-drip-${n++}: y\r\n`), options.dripMs);
      } else socket.write(text);
    });
  });
}

function https(path: string, headers: Record<string, string>, body?: string, localAddress?: string): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((res, rej) => {
    const req = httpsRequest({ host: '127.0.0.1', port: PORT, path, method: body ? 'POST' : 'GET', headers: body ? { 'content-type': 'application/json', ...headers } : headers, rejectUnauthorized: false, localAddress }, (r) => {
      let text = '';
      r.on('data', (d) => (text += d));
      r.on('end', () => res({ status: r.statusCode ?? 0, headers: r.headers, text }));
    });
    req.on('error', rej);
    req.end(body);
  });
}

async function transport() {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-probe-'));
  const controller = await startController({ PORT: String(PORT), HOST: '127.0.0.1', DATA_DIR: dir, ADMIN_PASSWORD, ADMIN_USERNAME, CONTROLLER_SECRET: 'probe-secret-0123456789abcdef' }, { logger: { info() {}, warn() {}, error() {} } });
  try {
    const big = 'a'.repeat(100 * 1024);
    out.transport = {
      header100k: await raw(`GET /edge/client/v1/version HTTP/1.1\r\nHost: x\r\nx-big: ${big}\r\n\r\n`),
      url100k: await raw(`GET /edge/client/v1/version?q=${big} HTTP/1.1\r\nHost: x\r\n\r\n`),
      headers3000: await raw(`GET /edge/client/v1/version HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 3000 }, (_, i) => `x-h${i}: v\r\n`).join('')}\r\n`),
      nulInHeader: await raw(`GET /edge/client/v1/version HTTP/1.1\r\nHost: x\r\nx-nul: a\u0000b\r\n\r\n`),
      malformedRequestLine: await raw(`GARBAGE\r\n\r\n`),
      headerDrip: await raw('', { dripMs: 1000, limitMs: QUICK ? 20_000 : 95_000 }),
      serverTimeouts: (({ headersTimeout, requestTimeout, keepAliveTimeout }) => ({ headersTimeout, requestTimeout, keepAliveTimeout }))(controller.server as unknown as Record<string, number>),
    };

    // Forwarding headers: an attacker on 127.0.0.2 forging the admin's address 127.0.0.1.
    const body = (password: string) => JSON.stringify({ username: ADMIN_USERNAME, password });
    for (let i = 0; i < 100; i++) await https(`${CLIENT}/authenticate?method=password`, { 'x-forwarded-for': '127.0.0.1' }, body(`wrong-${i}`), '127.0.0.2');
    const adminLogin = await https(`${CLIENT}/authenticate?method=password`, {}, body(ADMIN_PASSWORD), '127.0.0.1');
    const rotating: number[] = [];
    for (let i = 0; i < 30; i++) rotating.push((await https(`${CLIENT}/authenticate?method=password`, { 'x-forwarded-for': `198.51.100.${i}` }, JSON.stringify({ username: 'rotating-user', password: `wrong-${i}` }), '127.0.0.3')).status);
    const ip = await https(`${CLIENT}/authenticate?method=password`, { 'x-forwarded-for': '203.0.113.9' }, body(ADMIN_PASSWORD), '127.0.0.4');
    out.forwarded = {
      adminLoginAfter100ForgedFailures: adminLogin.status,
      rotatingXffStatuses: { '401': rotating.filter((s) => s === 401).length, '429': rotating.filter((s) => s === 429).length },
      recordedIpAddressWithForgedXff: ip.status === 200 ? JSON.parse(ip.text).data.ipAddress : ip.status,
    };

    // CORS.
    const cors: Record<string, unknown> = {};
    for (const origin of ['https://evil.example', 'null', `https://127.0.0.1:${PORT}`]) {
      const r = await https(`${CLIENT}/version`, { origin });
      cors[origin] = { allowOrigin: r.headers['access-control-allow-origin'] ?? null, credentials: r.headers['access-control-allow-credentials'] ?? null };
    }
    out.cors = cors;
  } finally {
    await controller.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const started = Date.now();
await inProcess();
await transport();
out.seconds = Math.round((Date.now() - started) / 1000);
console.log(JSON.stringify(out, null, 2));
process.exit(0);
