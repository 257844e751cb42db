import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startController, type NodeController } from '../../src/node.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

function get(port: number, path: string, ca?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', servername: 'localhost', port, path, ca, rejectUnauthorized: !!ca }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the Node entry', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-node-'));
  const env = { DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', ADMIN_PASSWORD: 'admin-password-for-tests' };
  let controller: NodeController | undefined;
  afterAll(async () => {
    await controller?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves HTTPS with a server certificate that the cacerts bundle verifies, and keeps its CA across restarts', async () => {
    controller = await startController(env, { logger: quiet });
    const version = await get(controller.port, '/edge/client/v1/version');
    expect(version.status).toBe(200);
    expect(JSON.parse(version.body).data.version).toBe('v1.6.2');

    // The bundle parses with openssl and is enough to verify the TLS connection.
    const cacerts = await get(controller.port, '/.well-known/est/cacerts');
    const p7 = join(dir, 'cacerts.p7');
    writeFileSync(p7, Buffer.from(cacerts.body.replace(/\n/g, ''), 'base64'));
    const pem = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-in', p7, '-print_certs'], { encoding: 'utf8' });
    expect(pem.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    const verified = await get(controller.port, '/version', pem);
    expect(verified.status).toBe(200);

    // The generated secret is private to its owner.
    expect(statSync(join(dir, 'controller.secret')).mode & 0o777).toBe(0o600);

    const firstRoot = controller.bootstrap.pki.rootFingerprint;
    expect(controller.bootstrap.createdAdmin?.username).toBe('admin');
    await controller.close();
    controller = await startController(env, { logger: quiet });
    expect(controller.bootstrap.pki.rootFingerprint).toBe(firstRoot);
    expect(controller.bootstrap.createdAdmin).toBeUndefined();
    const again = await get(controller.port, '/version', pem);
    expect(again.status).toBe(200);
  });
});
