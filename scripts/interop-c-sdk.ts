/**
 * Runs OpenZiti's own C SDK against this controller, as a tunneler would use it: enroll a one-time
 * token, log in with the enrolled certificate, list services, create a Dial and a Bind session, refresh
 * its token, notice a service taken away, and log in through an external identity provider. Once with OIDC
 * login (the default, what SDKs pick when `/version` announces `OIDC_AUTH`) and once with the legacy
 * `POST /authenticate?method=cert` (`ZITI_OIDC=false`).
 *
 * The SDK is not an npm package: build it (github.com/openziti/ziti-sdk-c, its `BUILD.md`, with the
 * sample programs) and give its build folder:
 *
 *   npx tsx scripts/interop-c-sdk.ts --sdk <ziti-sdk-c build folder> [--keep]
 *
 * The controller runs as `npm start` runs it, on a loopback port with a temporary data folder. Each
 * check reads the SDK's own debug log (what it requested and concluded) and the controller's state
 * afterwards. No edge router is online (this controller serves no router control channel), so the dial
 * itself waits for one; the session it was given is what is checked. `--keep` leaves the folder with
 * the SDK's logs and identity files. Exits 1 when a check fails.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { join, resolve } from 'node:path';
import { call, closeAgent, freePort, login, startControllerProcess, stopControllerProcess, waitUntilServing } from './lib/controller-process.js';

const MGMT = '/edge/management/v1';
const SERVICE = 'demo-weather';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

interface Run {
  code: number | null;
  output: string;
}

interface RunOptions {
  /** Runs once the program has run for `afterMs`. */
  meanwhile?: { afterMs: number; then: () => Promise<unknown> };
  /** For a program that asks on stdin: sees all output so far at each chunk, and may write a line. */
  answer?: (output: string, reply: (line: string) => void) => void;
  /** Stops the program as soon as its output satisfies this. */
  done?: (output: string) => boolean;
}

/** Runs a program for at most `timeoutMs` (then SIGTERM: the dial sample waits for a router forever). */
function run(program: string, args: string[], timeoutMs: number, options: RunOptions = {}): Promise<Run> {
  return new Promise((finish) => {
    const child = spawn(program, args, { env: { ...process.env, ZITI_LOG: '4' }, stdio: [options.answer ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (d: Buffer) => {
      output += d.toString();
      options.answer?.(output, (line) => child.stdin?.write(`${line}\n`));
      if (options.done?.(output)) child.kill('SIGTERM');
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    const { meanwhile } = options;
    const step = meanwhile && setTimeout(() => void meanwhile.then().catch((e: unknown) => (output += `\n[interop] ${String(e)}\n`)), meanwhile.afterMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (step) clearTimeout(step);
      finish({ code, output });
    });
  });
}

/**
 * A minimal OpenID provider on loopback (plain HTTP, which the SDK and `ZITI_JWKS_ALLOW_PRIVATE` accept):
 * discovery, an authorization endpoint that approves at once (redirecting to the SDK's own callback
 * with a code), a token endpoint that gives an ES256 access token for `subject`, and the JWKS.
 */
async function startIdentityProvider(subject: string): Promise<{ issuer: string; close(): Promise<void> }> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'interop', alg: 'ES256', use: 'sig' }] };
  const codes = new Map<string, string>();
  let issuer = '';
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    const json = (body: unknown, status = 200) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration') {
      return json({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`, response_types_supported: ['code'], code_challenge_methods_supported: ['S256'] });
    }
    if (url.pathname === '/jwks') return json(jwks);
    if (url.pathname === '/authorize') {
      const code = crypto.randomUUID();
      codes.set(code, url.searchParams.get('audience') ?? 'openziti');
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const audience = codes.get(new URLSearchParams(body).get('code') ?? '');
        if (!audience) return json({ error: 'invalid_grant' }, 400);
        void new SignJWT({ scope: 'openid' })
          .setProtectedHeader({ alg: 'ES256', kid: 'interop' })
          .setIssuer(issuer)
          .setSubject(subject)
          .setAudience(audience)
          .setIssuedAt()
          .setExpirationTime('1h')
          .sign(privateKey)
          .then((token) => json({ access_token: token, token_type: 'Bearer', expires_in: 3600 }));
      });
      return;
    }
    json({ error: 'not found' }, 404);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { issuer, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function ok(port: number, method: string, path: string, token: string, body?: unknown): Promise<any> {
  const reply = await call(port, method, MGMT + path, { token, body });
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
  return reply.body;
}

/** An identity with a one-time token, a service with an intercept config, and the three policies granting it over one router. */
async function seed(port: number, token: string): Promise<{ identityId: string; serviceId: string; jwt: string }> {
  const identityId = (await ok(port, 'POST', '/identities', token, { name: 'sdk-client', type: 'User', isAdmin: false, roleAttributes: ['clients'], enrollment: { ott: true } })).data.id;
  const intercept = (await ok(port, 'GET', `/config-types?filter=${encodeURIComponent('name="intercept.v1"')}`, token)).data[0].id;
  const configId = (await ok(port, 'POST', '/configs', token, { name: 'weather-intercept', configTypeId: intercept, data: { protocols: ['tcp'], addresses: ['wttr.ziti'], portRanges: [{ low: 80, high: 80 }] } })).data.id;
  const serviceId = (await ok(port, 'POST', '/services', token, { name: SERVICE, roleAttributes: ['weather'], configs: [configId], encryptionRequired: true })).data.id;
  await ok(port, 'POST', '/service-policies', token, { name: 'dial-weather', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#clients'], serviceRoles: ['#weather'] });
  await ok(port, 'POST', '/service-policies', token, { name: 'bind-weather', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#clients'], serviceRoles: ['#weather'] });
  await ok(port, 'POST', '/edge-routers', token, { name: 'er1', roleAttributes: ['public'] });
  await ok(port, 'POST', '/edge-router-policies', token, { name: 'all-routers', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#all'] });
  await ok(port, 'POST', '/service-edge-router-policies', token, { name: 'all-services', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] });
  const jwt = (await ok(port, 'GET', `/identities/${identityId}`, token)).data.enrollment.ott.jwt as string;
  return { identityId, serviceId, jwt };
}

interface Check {
  mode: string;
  what: string;
  passed: boolean;
  detail: string;
}

async function runMode(sdk: string, dir: string, mode: 'oidc' | 'legacy', checks: Check[]): Promise<void> {
  const check = (what: string, passed: boolean, detail = '') => checks.push({ mode, what, passed, detail });
  const port = await freePort();
  const dataDir = join(dir, `${mode}-data`);
  // OIDC: one-minute access tokens, so that the SDK refreshes its token (and then polls for service updates) within the run.
  // The provider's JWKS is on loopback, which signers may name only when the operator allows it.
  const controller = startControllerProcess({
    DATA_DIR: dataDir,
    PORT: String(port),
    ADMIN_PASSWORD: 'interop-admin-password',
    ZITI_JWKS_ALLOW_PRIVATE: 'true',
    ...(mode === 'legacy' ? { ZITI_OIDC: 'false' } : { ZITI_OIDC_ACCESS_TOKEN_MINUTES: '1' }),
  });
  try {
    await waitUntilServing(controller);
    const admin = await login(port, 'admin', 'interop-admin-password');
    const { identityId, serviceId, jwt } = await seed(port, admin);

    // The classic one-time-token path of the sample takes a file whose name does not end in .jwt.
    const tokenFile = join(dir, `${mode}.token`);
    const identityFile = join(dir, `${mode}-identity.json`);
    writeFileSync(tokenFile, jwt);
    const enroll = await run(join(sdk, 'programs/sample_enroll/sample_enroll'), [tokenFile, identityFile], 30_000);
    writeFileSync(join(dir, `${mode}-enroll.log`), enroll.output);
    check('enrolls the one-time token (JWT checked against the server certificate, CSR signed)', enroll.code === 0 && existsSync(identityFile), `exit ${enroll.code}`);
    if (!existsSync(identityFile)) return;

    const dial = await run(join(sdk, 'programs/zitilib-samples/ziti-http-get'), [identityFile, 'http://wttr.ziti/'], 8_000);
    const log = dial.output;
    writeFileSync(join(dir, `${mode}-dial.log`), log);
    const method = mode === 'oidc' ? 'using OIDC authentication method' : 'using Legacy authentication method';
    check(`logs in with its certificate (${mode === 'oidc' ? 'OIDC authorization code flow' : 'POST /authenticate?method=cert'})`, log.includes(method) && /setting auth_state\[\d\] to 3/.test(log));
    check('reads its identity and API session', /completed GET\[\/current-identity\]/.test(log) && /completed GET\[\/current-api-session\]/.test(log));
    check('polls service updates', /completed GET\[\/current-api-session\/service-updates\]/.test(log));
    check(`lists its services and finds ${SERVICE}`, log.includes('received 1/1 for paging request GET[/services') && log.includes(`got service[${SERVICE}] id[${serviceId}]`));
    const session = new RegExp(`got session\\[([^\\]]+)\\] for service\\[${SERVICE}\\]`).exec(log);
    check('creates a Dial session', session !== null, session ? `session ${session[1]}` : '');

    const sessions = (await ok(port, 'GET', `/sessions?filter=${encodeURIComponent(`serviceId="${serviceId}"`)}`, admin)).data as { type: string }[];
    // A bearer caller's session is a service-access token, minted and not stored (as v1.6.2 does).
    if (mode === 'oidc') check('the session is a service-access token, not a stored session', sessions.length === 0, `${sessions.length} stored`);
    else check('the controller keeps that session', sessions.length > 0 && sessions.every((s) => s.type === 'Dial'), `${sessions.length} stored`);
    // Hosting: the sample binds the service (a Bind session), then waits for a router to host on.
    if (mode === 'legacy') {
      await run(join(sdk, 'programs/sample-host/sample-host'), ['server', identityFile, SERVICE], 6_000);
      const bind = (await ok(port, 'GET', `/sessions?filter=${encodeURIComponent(`serviceId="${serviceId}" and type="Bind"`)}`, admin)).data as unknown[];
      check('binds the service (a Bind session, stored)', bind.length > 0, `${bind.length} stored`);
    }
    await externalLogin(sdk, dir, mode, port, admin, check);

    if (mode === 'oidc') {
      // A tunneler's day: it refreshes its access token, then polls for service updates; when an admin
      // deletes the policies that grant the service, the next poll moves and the SDK drops the service.
      const policies = (await ok(port, 'GET', `/service-policies?filter=${encodeURIComponent('name in ["dial-weather", "bind-weather"]')}`, admin)).data as { id: string }[];
      const revoke = () => Promise.all(policies.map((p) => ok(port, 'DELETE', `/service-policies/${p.id}`, admin)));
      const day = await run(join(sdk, 'programs/zitilib-samples/ziti-http-get'), [identityFile, 'http://wttr.ziti/'], 55_000, { meanwhile: { afterMs: 5_000, then: revoke } });
      writeFileSync(join(dir, `${mode}-day.log`), day.output);
      check('refreshes its access token (refresh_token grant)', day.output.includes('token refresh success'));
      check('drops the service once its policies are deleted (service updates moved)', /sending service event initial\[false\] 0 added, 1 removed/.test(day.output));
    }
    const identity = (await ok(port, 'GET', `/identities/${identityId}`, admin)).data;
    check('the controller recorded the SDK it logged in with', identity.sdkInfo?.type === 'ziti-sdk-c', JSON.stringify(identity.sdkInfo ?? null));
  } finally {
    await stopControllerProcess(controller);
    writeFileSync(join(dir, `${mode}-controller.log`), controller.output());
  }
}

/**
 * Login through an external identity provider: a signer with an `externalAuthUrl`, an auth policy that
 * allows only it, an identity found by its external id. The SDK's `jwt-auth` sample lists the signers,
 * runs the authorization-code flow (PKCE) at the provider, opening the URL is done here as a browser
 * would, and logs in to the controller with the provider's access token.
 */
async function externalLogin(sdk: string, dir: string, mode: string, port: number, admin: string, check: (what: string, passed: boolean, detail?: string) => void): Promise<void> {
  const idp = await startIdentityProvider('interop-external-user');
  try {
    const signer = (await ok(port, 'POST', '/external-jwt-signers', admin, { name: 'interop-idp', issuer: idp.issuer, audience: 'openziti', jwksEndpoint: `${idp.issuer}/jwks`, externalAuthUrl: idp.issuer, clientId: 'ziti-client', scopes: ['openid'], claimsProperty: 'sub', useExternalId: true, enabled: true, targetToken: 'ACCESS' })).data.id;
    const policy = (await ok(port, 'POST', '/auth-policies', admin, {
      name: 'external-only',
      primary: { cert: { allowed: false, allowExpiredCerts: false }, extJwt: { allowed: true, allowedSigners: [signer] }, updb: { allowed: false, lockoutDurationMinutes: 0, maxAttempts: 0, minPasswordLength: 5, requireMixedCase: false, requireNumberChar: false, requireSpecialChar: false } },
      secondary: { requireTotp: false },
    })).data.id;
    await ok(port, 'POST', '/identities', admin, { name: 'external-user', type: 'User', isAdmin: false, externalId: 'interop-external-user', authPolicyId: policy, roleAttributes: ['clients'] });
    let chosen = false;
    let opened = false;
    let browserError = '';
    const login = await run(
      join(sdk, 'programs/auth-samples/jwt-auth'),
      [`https://127.0.0.1:${port}`, '-d', '4'],
      20_000,
      {
        answer: (output, reply) => {
          if (!chosen && /Select provider\(0-\d+\): /.test(output)) {
            chosen = true;
            reply(/^(\d+): interop-idp /m.exec(output)?.[1] ?? '0');
          }
          // The whole line: output arrives in chunks, which may end inside the URL.
          const link = /continue auth: (\S+)\r?\n/.exec(output);
          if (link && !opened) {
            opened = true;
            // The browser's part: the provider approves and redirects to the SDK's own callback, which
            // listens on the IPv6 loopback only (the redirect names `localhost`).
            void (async () => {
              const approved = await fetch(link[1], { redirect: 'manual' });
              const callback = new URL(approved.headers.get('location') ?? '');
              if (callback.hostname === 'localhost') callback.hostname = '[::1]';
              await (await fetch(callback)).text();
            })().catch((e: unknown) => (browserError = String(e)));
          }
        },
        done: (output) => /received \d+\/\d+ for paging request GET\[\/services/.test(output),
      },
    );
    writeFileSync(join(dir, `${mode}-external.log`), login.output);
    check('logs in through an external identity provider (PKCE at the provider, its access token here)', login.output.includes('ztx status: OK') && /setting auth_state\[\d\] to 3/.test(login.output), browserError);
    check('the externally authenticated identity lists its services', login.output.includes('received 1/1 for paging request GET[/services'));
  } finally {
    await idp.close();
  }
}

async function main(): Promise<void> {
  const sdkOption = option('sdk');
  if (!sdkOption) {
    console.error('usage: npx tsx scripts/interop-c-sdk.ts --sdk <ziti-sdk-c build folder> [--keep]');
    process.exit(2);
  }
  const sdk = resolve(sdkOption);
  for (const program of ['programs/sample_enroll/sample_enroll', 'programs/zitilib-samples/ziti-http-get', 'programs/sample-host/sample-host', 'programs/auth-samples/jwt-auth']) {
    if (!existsSync(join(sdk, program))) {
      console.error(`not built: ${join(sdk, program)} (build the SDK with its sample programs)`);
      process.exit(2);
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'ziti-interop-'));
  const checks: Check[] = [];
  try {
    for (const mode of ['oidc', 'legacy'] as const) await runMode(sdk, dir, mode, checks);
  } finally {
    closeAgent();
  }
  const version = /Ziti C SDK version (\S+)/.exec(readFileSync(join(dir, 'oidc-enroll.log'), 'utf8'))?.[1] ?? 'unknown';
  console.log(`OpenZiti C SDK ${version} against this controller\n`);
  console.log('| login | check | result |\n| --- | --- | --- |');
  for (const c of checks) console.log(`| ${c.mode} | ${c.what} | ${c.passed ? 'pass' : 'FAIL'}${c.detail ? ` (${c.detail})` : ''} |`);
  const failed = checks.filter((c) => !c.passed).length;
  if (process.argv.includes('--keep') || failed > 0) console.log(`\nlogs and identity files: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
  process.exit(failed > 0 ? 1 : 0);
}

await main();
