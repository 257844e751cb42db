import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jwtVerify } from 'jose';
import { fetchJwks, JwksError, setJwksHostResolver } from '../../src/auth/ext-jwt/jwks.js';
import { signerKey } from '../../src/auth/ext-jwt/keys.js';
import { findSignerByIssuer } from '../../src/auth/ext-jwt/repo.js';
import { extJwtMethod } from '../../src/auth/methods/ext-jwt.js';
import { CLIENT } from '../helpers/client.js';
import { createNodeTestApp, recordReplies, type NodeTestApp } from '../helpers/node-app.js';
import { TypedApi, type ManagementOperations } from '../helpers/typed-api.js';
import { jwksBody, providerKey, signToken, type ProviderKey } from '../shared/ext-jwt-fixtures.js';
import { uniqueName } from '../shared/identities.suite.js';
import { startJwksServer } from './jwks-server.js';

/**
 * JWKS fetching against a real HTTP server on 127.0.0.1 (redirects, private hosts, the resolver check),
 * and logins on an app that keeps private hosts refused (the default).
 */
describe('JWKS fetching (Node, real server)', () => {
  let server: Server;
  let base = '';
  let hits = 0;
  beforeAll(async () => {
    const key = await providerKey('ES256');
    server = createServer((req, res) => {
      hits++;
      const url = req.url ?? '/';
      if (url === '/keys') return void res.writeHead(200, { 'content-type': 'application/json' }).end(jwksBody(key));
      if (url === '/same-host') return void res.writeHead(302, { location: '/keys' }).end();
      if (url === '/other-host') return void res.writeHead(302, { location: `http://localhost:${(server.address() as AddressInfo).port}/keys` }).end();
      if (url === '/loop') return void res.writeHead(307, { location: '/loop' }).end();
      if (url === '/not-json') return void res.writeHead(200).end('<html>');
      if (url === '/stream') {
        // A body that never ends: the deadline must end the read.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"keys":[');
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  afterEach(() => setJwksHostResolver(undefined));

  const open = { allowPrivate: true, timeoutMs: 1000 };
  const closed = { allowPrivate: false, timeoutMs: 1000 };

  it('fetches keys and follows a redirect on the same host only', async () => {
    expect((await fetchJwks(`${base}/keys`, open)).map((k) => k.kty)).toEqual(['EC']);
    expect(await fetchJwks(`${base}/same-host`, open)).toHaveLength(1);
    await expect(fetchJwks(`${base}/other-host`, open)).rejects.toThrow('another host');
    await expect(fetchJwks(`${base}/loop`, open)).rejects.toThrow('too many');
    await expect(fetchJwks(`${base}/not-json`, open)).rejects.toThrow('not JSON');
    await expect(fetchJwks(`${base}/missing`, open)).rejects.toThrow('404');
  });

  it('ends a body that never finishes at the deadline', async () => {
    const started = performance.now();
    await expect(fetchJwks(`${base}/stream`, { ...open, timeoutMs: 300 })).rejects.toThrow('timed out');
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses loopback, http and names resolving into the private network unless allowed, before connecting', async () => {
    const before = hits;
    await expect(fetchJwks(`${base}/keys`, closed)).rejects.toBeInstanceOf(JwksError);
    await expect(fetchJwks(base.replace('http:', 'https:') + '/keys', closed)).rejects.toThrow('private address');
    setJwksHostResolver(async () => ['10.0.0.7']);
    await expect(fetchJwks('https://idp.example.com/keys', closed)).rejects.toThrow('resolves to a private address');
    setJwksHostResolver(async () => ['93.184.216.34', '::1']);
    await expect(fetchJwks('https://idp.example.com/keys', closed)).rejects.toThrow('resolves to a private address');
    expect(hits).toBe(before);
  });
});

describe('ext-jwt logins (Node)', () => {
  let strict: NodeTestApp;
  let open: NodeTestApp;
  let provider: Awaited<ReturnType<typeof startJwksServer>>;
  let key: ProviderKey;
  const seen: string[] = [];

  beforeAll(async () => {
    strict = await createNodeTestApp();
    open = await createNodeTestApp({ ZITI_JWKS_ALLOW_PRIVATE: 'true' });
    provider = await startJwksServer();
    key = await providerKey('RS256');
    provider.serve('/jwks', { body: jwksBody(key) });
    recordReplies(strict.client, seen);
    recordReplies(open.client, seen);
  });
  afterAll(async () => {
    strict?.close();
    open?.close();
    await provider?.close();
  });

  async function setUp(t: NodeTestApp) {
    const token = await t.client.login();
    const admin = new TypedApi<ManagementOperations>(() => t.client, 'management', () => token);
    const issuer = uniqueName('https://idp');
    await admin.ok('createExternalJwtSigner', { body: { name: uniqueName('s'), enabled: true, issuer, audience: 'aud', jwksEndpoint: provider.url('/jwks') } });
    const person = (await admin.ok('createIdentity', { body: { name: uniqueName('p'), type: 'User', isAdmin: false } })).data!.id!;
    return { issuer, person };
  }
  const signerKeyFor = async (t: NodeTestApp, issuer: string, k: ProviderKey) => (await signerKey((await findSignerByIssuer(t.deps.db, issuer))!, k.kid, k.alg, { allowPrivate: true, timeoutMs: 1000 }, Date.now()))!;
  const login = (t: NodeTestApp, jwt: string) => t.client.request(`${CLIENT}/authenticate?method=ext-jwt`, { method: 'POST', headers: { authorization: `Bearer ${jwt}` } });

  it('refuses a JWKS on 127.0.0.1 unless ZITI_JWKS_ALLOW_PRIVATE=true, without contacting it', async () => {
    const before = provider.hits('/jwks');
    const s = await setUp(strict);
    expect((await login(strict, await signToken(key, { iss: s.issuer, aud: 'aud', sub: s.person }))).status).toBe(401);
    expect(provider.hits('/jwks')).toBe(before);
    expect(strict.logs.some((l) => l.includes('JWKS endpoint refused'))).toBe(true);
    const o = await setUp(open);
    expect((await login(open, await signToken(key, { iss: o.issuer, aud: 'aud', sub: o.person }))).status).toBe(200);
    expect(provider.hits('/jwks')).toBe(before + 1);
  });

  it('logs why a token was refused, and never the token', async () => {
    const o = await setUp(open);
    const tokens = [await signToken(key, { iss: o.issuer, aud: 'other', sub: o.person }), await signToken(key, { iss: o.issuer, aud: 'aud', sub: o.person, exp: Math.floor(Date.now() / 1000) - 10 })];
    for (const jwt of tokens) {
      const reply = await login(open, jwt);
      expect(reply.status).toBe(401);
      expect(reply.text).not.toContain(jwt.split('.')[2]);
    }
    const log = open.logs.join('\n');
    expect(log).toContain('ERR_JWT_CLAIM_VALIDATION_FAILED');
    expect(log).toContain('ERR_JWT_EXPIRED');
    for (const jwt of tokens) for (const part of jwt.split('.')) expect(log).not.toContain(part);
    for (const reply of seen) for (const jwt of tokens) expect(reply).not.toContain(jwt.split('.')[2]);
  });

  /** `EXT_JWT_PERF=1 npx vitest run --project node test/node/ext-jwt.test.ts`: ext-jwt logins a second with a cached JWKS. */
  it.skipIf(!process.env.EXT_JWT_PERF)('ext-jwt logins per second (in-process, cached JWKS)', async () => {
    for (const [alg, k] of [['ES256', await providerKey('ES256')], ['RS256', key], ['EdDSA', await providerKey('EdDSA')]] as const) {
      provider.serve('/jwks', { body: jwksBody(key, k) });
      const o = await setUp(open);
      const jwt = await signToken(k, { iss: o.issuer, aud: 'aud', sub: o.person, exp: Math.floor(Date.now() / 1000) + 3600 });
      expect((await login(open, jwt)).status).toBe(200);
      for (const concurrency of [1, 8]) {
        let done = 0;
        const started = performance.now();
        const until = started + 3000;
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (performance.now() < until) {
              expect((await login(open, jwt)).status).toBe(200);
              done++;
            }
          }),
        );
        const seconds = (performance.now() - started) / 1000;
        console.log(`ext-jwt ${alg} logins, concurrency ${concurrency}: ${(done / seconds).toFixed(0)}/s (${done} in ${seconds.toFixed(1)} s)`);
      }
      // The method's own work (token checks, signer and identity reads) without the session write and HTTP.
      const svc = { deps: open.deps, caller: undefined, requestId: 'perf', clientAddress: () => '', defer: () => undefined, bearerTokens: () => [jwt] };
      let verified = 0;
      const started = performance.now();
      while (performance.now() < started + 2000) {
        await extJwtMethod.authenticate({ svc, body: undefined, clientCertificate: () => undefined, address: '', throttle: undefined as never });
        verified++;
      }
      const seconds = (performance.now() - started) / 1000;
      console.log(`ext-jwt ${alg} method only (verify + 2 indexed reads): ${(verified / seconds).toFixed(0)}/s`);
      let crypto = 0;
      const verifyKey = await signerKeyFor(open, o.issuer, k);
      const t0 = performance.now();
      while (performance.now() < t0 + 1000) {
        await jwtVerify(jwt, verifyKey, { issuer: o.issuer, audience: 'aud' });
        crypto++;
      }
      console.log(`ext-jwt ${alg} signature and claims check only: ${(crypto / ((performance.now() - t0) / 1000)).toFixed(0)}/s`);
    }
  }, 120_000);
});
