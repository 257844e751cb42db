import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { connect } from 'node:tls';
import { importX509, jwtVerify } from 'jose';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type NodeController } from '../../src/node.js';
import { x509 } from '../../src/pki/x509.js';
import { cacertsBundle, newCsr, pemCertificates } from '../shared/pki-helpers.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

interface Reply {
  status: number;
  body: any;
}

/** One HTTPS request to the started server, optionally presenting a client key and certificate chain. */
function call(port: number, path: string, options: { method?: string; body?: string; headers?: Record<string, string>; key?: string; cert?: string; ca?: string; agent?: Agent } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', servername: 'localhost', port, path, method: options.method ?? 'GET', headers: options.headers, key: options.key, cert: options.cert, ca: options.ca, rejectUnauthorized: !!options.ca, agent: options.agent },
      (res) => {
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
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('certificate login over real mTLS on the Node HTTPS server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-mtls-'));
  let controller: NodeController;
  let port = 0;
  let admin = '';
  beforeAll(async () => {
    controller = await startController({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', ADMIN_PASSWORD: 'admin-password-for-tests' }, { logger: quiet });
    port = controller.port;
    const login = await call(port, '/edge/management/v1/authenticate?method=password', { method: 'POST', body: JSON.stringify({ username: 'admin', password: 'admin-password-for-tests' }), headers: { 'content-type': 'application/json' } });
    admin = login.body.data.token;
  });
  afterAll(async () => {
    await controller?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('enrolls over HTTPS, then authenticates with the issued certificate as the TLS client certificate', async () => {
    const mgmt = { 'content-type': 'application/json', 'zt-session': admin };
    const created = await call(port, '/edge/management/v1/identities', { method: 'POST', headers: mgmt, body: JSON.stringify({ name: 'mtls-device', isAdmin: false, type: 'Device', enrollment: { ott: true } }) });
    const id = created.body.data.id;
    const { token, jwt } = (await call(port, `/edge/management/v1/identities/${id}`, { headers: mgmt })).body.data.enrollment.ott;

    // As an SDK does: verify the JWT with the key of the leaf the server presents, trusting no CA...
    const leafPem = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false }, () => {
        const der = socket.getPeerCertificate().raw;
        socket.end();
        resolve(`-----BEGIN CERTIFICATE-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`);
      });
      socket.on('error', reject);
    });
    await expect(jwtVerify(jwt, await importX509(leafPem, 'ES256'), { audience: '' })).resolves.toBeTruthy();
    // ...then trust only the cacerts bundle for every later call.
    const bundle = cacertsBundle((await call(port, '/.well-known/est/cacerts')).body).map((c) => c.toString('pem')).join('\n');
    expect((await call(port, '/version', { ca: bundle })).status).toBe(200);
    const { csrPem, keys } = await newCsr(id);
    const enrolled = await call(port, `/edge/client/v1/enroll?method=ott&token=${token}`, { method: 'POST', body: csrPem, headers: { 'content-type': 'text/plain', accept: 'application/json' } });
    expect(enrolled.status).toBe(200);
    const certPem: string = enrolled.body.data.cert;
    const keyPem = x509.PemConverter.encode((await crypto.subtle.exportKey('pkcs8', keys.privateKey)) as ArrayBuffer, 'PRIVATE KEY');

    // The SDK posts at the root path with the whole chain it was given.
    const auth = await call(port, '/authenticate?method=cert', { method: 'POST', key: keyPem, cert: certPem, body: '{}', headers: { 'content-type': 'application/json' } });
    expect(auth.status, JSON.stringify(auth.body)).toBe(200);
    expect(auth.body.data.identityId).toBe(id);
    expect(auth.body.data.isCertExtendable).toBe(true);
    expect(auth.body.data.improperClientCertChain).toBeUndefined();
    const me = await call(port, '/edge/client/v1/current-identity', { headers: { 'zt-session': auth.body.data.token } });
    expect(me.body.data.id).toBe(id);

    // The leaf alone also authenticates, flagged: the controller filled in its intermediate.
    const leafOnly = pemCertificates(certPem)[0].toString('pem');
    const improper = await call(port, '/authenticate?method=cert', { method: 'POST', key: keyPem, cert: leafOnly, body: '{}', headers: { 'content-type': 'application/json' } });
    expect(improper.status).toBe(200);
    expect(improper.body.data.improperClientCertChain).toBe(true);

    // Without a client certificate, or with a key that is not the certificate's, there is no login.
    const none = await call(port, '/authenticate?method=cert', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('INVALID_AUTH');
    const other = await newCsr('other');
    const otherKey = x509.PemConverter.encode((await crypto.subtle.exportKey('pkcs8', other.keys.privateKey)) as ArrayBuffer, 'PRIVATE KEY');
    await expect(call(port, '/authenticate?method=cert', { method: 'POST', key: otherKey, cert: certPem, body: '{}' })).rejects.toThrow();
  });
});
