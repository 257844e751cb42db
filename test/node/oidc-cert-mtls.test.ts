import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type NodeController } from '../../src/node.js';
import { x509 } from '../../src/pki/x509.js';
import { cacertsBundle, newCsr, sha1Hex } from '../shared/pki-helpers.js';
import { pkce } from '../shared/oidc-fixtures.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** One HTTPS request to the started server, with the controller's CA trusted, optionally with a client key and certificate. */
function call(port: number, path: string, options: { method?: string; body?: string; headers?: Record<string, string>; key?: string; cert?: string; ca: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', servername: 'localhost', port, path, method: options.method ?? 'GET', headers: { host: `localhost:${port}`, ...options.headers }, key: options.key, cert: options.cert, ca: options.ca }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: any = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * The OIDC certificate login against the real Node HTTPS server, the client certificate presented in the
 * TLS handshake as an SDK presents it (reference oidc.md §5.0, real-sdk-client.md §2).
 */
describe('OIDC certificate login over real mTLS on the Node HTTPS server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-oidc-mtls-'));
  let controller: NodeController;
  let port = 0;
  let ca = '';
  beforeAll(async () => {
    controller = await startController({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', ADMIN_PASSWORD: 'admin-password-for-tests' }, { logger: quiet });
    port = controller.port;
  });
  afterAll(async () => {
    await controller?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('authorizes, logs in with the TLS client certificate, redeems the code and uses the access token', async () => {
    // Trust only the cacerts bundle, as an enrolled SDK does.
    const anyCa = await new Promise<string>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', servername: 'localhost', port, path: '/.well-known/est/cacerts', rejectUnauthorized: false }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
    ca = cacertsBundle(anyCa).map((c) => c.toString('pem')).join('\n');
    const version = await call(port, '/version', { ca });
    expect(version.body.data.capabilities).toContain('OIDC_AUTH');
    expect(version.body.data.apiVersions['edge-oidc'].v1.path).toBe('/oidc');

    const login = await call(port, '/edge/management/v1/authenticate?method=password', { method: 'POST', ca, body: JSON.stringify({ username: 'admin', password: 'admin-password-for-tests' }), headers: { 'content-type': 'application/json' } });
    const mgmt = { 'content-type': 'application/json', 'zt-session': login.body.data.token };
    const created = await call(port, '/edge/management/v1/identities', { method: 'POST', ca, headers: mgmt, body: JSON.stringify({ name: 'oidc-mtls-device', isAdmin: false, type: 'Device', enrollment: { ott: true } }) });
    const id = created.body.data.id;
    const { token } = (await call(port, `/edge/management/v1/identities/${id}`, { ca, headers: mgmt })).body.data.enrollment.ott;
    const { csrPem, keys } = await newCsr(id);
    const enrolled = await call(port, `/edge/client/v1/enroll?method=ott&token=${token}`, { method: 'POST', ca, body: csrPem, headers: { 'content-type': 'text/plain', accept: 'application/json' } });
    expect(enrolled.status).toBe(200);
    const cert: string = enrolled.body.data.cert;
    const key = x509.PemConverter.encode((await crypto.subtle.exportKey('pkcs8', keys.privateKey)) as ArrayBuffer, 'PRIVATE KEY');
    const fingerprint = await sha1Hex(new x509.X509Certificate(cert).rawData);
    const tls = { ca, key, cert };

    // The C SDK's sequence: discovery, POST authorize (query parameters), POST the certificate login.
    const discovery = await call(port, '/oidc/.well-known/openid-configuration', tls);
    const issuer = `https://localhost:${port}/oidc`;
    expect(discovery.body.issuer).toBe(issuer);
    const { verifier, challenge } = await pkce();
    const query = new URLSearchParams({ client_id: 'openziti', scope: 'openid offline_access', response_type: 'code', redirect_uri: 'http://localhost:20314/auth/callback', code_challenge: challenge, code_challenge_method: 'S256', state: 'st', audience: 'openziti' });
    const authorize = await call(port, `/oidc/authorize?${query}`, { ...tls, method: 'POST', headers: { accept: 'application/json' } });
    expect(authorize.status).toBe(302);
    const location = new URL(authorize.headers.location as string);
    expect(location.pathname).toBe('/oidc/login/cert');
    const authRequestId = location.searchParams.get('authRequestID')!;
    const certLogin = await call(port, `/oidc/login/cert?id=${authRequestId}`, { ...tls, method: 'POST', body: JSON.stringify({ sdkInfo: { type: 'ziti-sdk-c' }, envInfo: { os: 'linux' } }), headers: { 'content-type': 'application/json', accept: 'application/json' } });
    expect(certLogin.status, JSON.stringify(certLogin.body)).toBe(302);
    const cb = new URL(certLogin.headers.location as string);
    expect(cb.origin).toBe(`https://localhost:${port}`);
    const redirect = await call(port, cb.pathname + cb.search, tls);
    expect(redirect.status).toBe(302);
    const code = new URL(redirect.headers.location as string).searchParams.get('code')!;
    const tokens = await call(port, '/oidc/oauth/token', {
      ...tls,
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: 'openziti', redirect_uri: 'http://localhost:20314/auth/callback', state: 'st' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    // Verified against the provider's own JWKS, fetched over the same TLS.
    const jwksText = (await call(port, '/oidc/keys', tls)).body;
    const access = (await jwtVerify(tokens.body.access_token, createLocalJWKSet(jwksText), { issuer, audience: 'openziti' })).payload as Record<string, any>;
    expect(access).toMatchObject({ sub: id, amr: ['cert'], z_cfs: [fingerprint], z_ice: true, z_t: 'a' });

    // The access token works without the certificate; the session lists it as a JWT session.
    const me = await call(port, '/edge/client/v1/current-identity', { ca, headers: { authorization: `Bearer ${tokens.body.access_token}` } });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(id);
    // Renewal as the C SDK does it (refresh_token grant with Basic client authentication).
    const renewed = await call(port, '/oidc/oauth/token', {
      ...tls,
      method: 'POST',
      body: new URLSearchParams({ client_id: 'openziti', grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('openziti:').toString('base64url')}` },
    });
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
    expect((await call(port, '/edge/client/v1/current-api-session', { ca, headers: { authorization: `Bearer ${renewed.body.access_token}` } })).body.data.id).toBe(access.z_asid);

    // Without the certificate the same login is refused.
    const flow2 = await call(port, `/oidc/authorize?${query}`, { ca, method: 'POST' });
    const id2 = new URL(flow2.headers.location as string).searchParams.get('authRequestID')!;
    const refused = await call(port, `/oidc/login/cert?id=${id2}`, { ca, method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(refused.status).toBe(401);
  });
});
