/**
 * The worker as `wrangler deploy` uploads it (the --dry-run bundle: minified, function names not kept,
 * wrangler.toml), run under workerd through Miniflare on a local D1. The suites run the source under the
 * Workers pool, which neither minifies nor drops names; this checks that the deployed bundle still
 * parses a CSR, issues a certificate (ASN.1 through @peculiar/x509 and its schema library; see
 * src/pki/x509.ts on class names) and logs in with it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeJwt } from 'jose';
import { Miniflare, type WorkerOptions } from 'miniflare';
import { afterAll, describe, expect, it } from 'vitest';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import { buildWorker } from '../../bench/bundle.js';
import { migrationStatements } from '../../bench/runtimes/workerd.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, CLIENT, MGMT, TestClient } from '../helpers/client.js';
import { x509 } from '../../src/pki/x509.js';
import { pemCertificates } from '../shared/pki-helpers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the deployed worker bundle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-bundle-'));
  let mf: Miniflare | undefined;
  afterAll(async () => {
    await mf?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('enrolls an identity with a CSR and logs it in with the issued certificate', async () => {
    const built = await buildWorker(root, 'wrangler.toml', join(dir, 'out'));
    const { workerOptions } = unstable_getMiniflareWorkerOptions(join(root, 'wrangler.toml'));
    mf = new Miniflare({
      cf: false,
      d1Persist: join(dir, 'd1'),
      workers: [
        {
          ...(workerOptions as WorkerOptions),
          modules: true,
          scriptPath: built.main,
          modulesRoot: built.dir,
          bindings: { ...(workerOptions.bindings as Record<string, string>), ADMIN_USERNAME, ADMIN_PASSWORD, CONTROLLER_SECRET: 'bundle-test-secret-0123456789abcdef', ZITI_LOG_LEVEL: 'warn' },
        } as WorkerOptions,
      ],
    });
    const db = await mf.getD1Database('DB');
    await db.batch(migrationStatements(root).map((sql) => db.prepare(sql)));
    const worker = mf;
    const client = new TestClient(async (request) => (await worker.dispatchFetch(request.url, { method: request.method, headers: Object.fromEntries(request.headers), body: request.body ? await request.arrayBuffer() : undefined, redirect: 'manual' })) as unknown as Response);

    const admin = await client.login();
    const created = await client.request(`${MGMT}/identities`, { token: admin, body: { name: 'bundle-enrollee', type: 'Default', isAdmin: false, enrollment: { ott: true } } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const ott = (await client.get(`${MGMT}/identities/${id}`, admin)).body.data.enrollment.ott;
    // A CSR with an extension request, as routers and some SDKs send (its attributes are a repeated ASN.1 field).
    const keys = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const csrPem = (
      await x509.Pkcs10CertificateRequestGenerator.create({
        name: [{ O: ['OpenZiti'] }, { DC: [decodeJwt(ott.jwt).iss as string] }, { CN: [id] }],
        keys,
        signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
        extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'bundle-enrollee.example' }])],
      })
    ).toString('pem');
    const enrolled = await client.request(`${CLIENT}/enroll?method=ott&token=${ott.token}`, { method: 'POST', raw: csrPem, headers: { 'content-type': 'application/x-pem-file', accept: 'application/json' } });
    expect(enrolled.status, enrolled.text).toBe(200);
    const [leaf] = pemCertificates(enrolled.body.data.cert);
    expect(leaf.subject).toContain(`CN=${id}`);

    // Workers see a client certificate as the edge's verdict on it (request.cf.tlsClientAuth).
    const fingerprint = Buffer.from(await crypto.subtle.digest('SHA-1', leaf.rawData)).toString('hex');
    const login = await worker.dispatchFetch(`https://localhost:1280${CLIENT}/authenticate?method=cert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      cf: { tlsClientAuth: { certPresented: '1', certVerified: 'SUCCESS', certFingerprintSHA1: fingerprint } },
    });
    const session = (await login.json()) as { data: { identityId: string; token: string } };
    expect(login.status).toBe(200);
    expect(session.data.identityId).toBe(id);
    const me = await client.get(`${CLIENT}/current-identity`, session.data.token);
    expect(me.body.data).toMatchObject({ id, name: 'bundle-enrollee', authenticators: { cert: { fingerprint } } });
  }, 180_000);
});
