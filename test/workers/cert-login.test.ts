import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { CLIENT, MGMT, TestClient } from '../helpers/client.js';
import { certLoginSuite } from '../shared/cert-login.suite.js';
import { newCsr, newTestCa, pemCertificates, sha1Hex } from '../shared/pki-helpers.js';
import { workerClient } from './helpers.js';

const client = workerClient();

/** Requests as the platform delivers them after hostname mTLS verified the client's leaf. */
function mtlsClient(leafDer: ArrayBuffer): TestClient {
  return new TestClient(async (request) => {
    const tlsClientAuth = { certPresented: '1', certVerified: 'SUCCESS', certFingerprintSHA1: (await sha1Hex(leafDer)).toUpperCase() };
    return (exports as any).default.fetch(new Request(request, { cf: { tlsClientAuth } } as RequestInit));
  });
}

certLoginSuite(
  () => client,
  () => ({ seesChain: false, client: (chain) => mtlsClient(chain[0].rawData) }),
);

describe('certificate login on Workers: only what the platform verified counts', () => {
  it('a presented but unverified certificate, or a forwarded certificate header, authenticates nobody', async () => {
    const token = await client.login();
    const created = await client.request(`${MGMT}/identities`, { token, body: { name: `wk-${crypto.randomUUID().slice(0, 8)}`, isAdmin: false, type: 'User', enrollment: { ott: true } } });
    const id = created.body.data.id;
    const ott = (await client.get(`${MGMT}/identities/${id}`, token)).body.data.enrollment.ott.token;
    const { csrPem } = await newCsr(id);
    const enrolled = await client.request(`${CLIENT}/enroll?method=ott&token=${ott}`, { method: 'POST', raw: csrPem, headers: { 'content-type': 'text/plain' } });
    const leaf = pemCertificates(enrolled.body.data.cert)[0];
    const fp = await sha1Hex(leaf.rawData);
    const as = (tlsClientAuth: Record<string, string> | undefined, headers: Record<string, string> = {}) =>
      (exports as any).default.fetch(new Request(`https://localhost:1280${CLIENT}/authenticate?method=cert`, { method: 'POST', headers, cf: tlsClientAuth ? { tlsClientAuth } : undefined } as RequestInit)) as Promise<Response>;

    expect((await as({ certPresented: '1', certVerified: 'SUCCESS', certFingerprintSHA1: fp })).status).toBe(200);
    expect((await as({ certPresented: '1', certVerified: 'FAILED:self signed certificate', certFingerprintSHA1: fp })).status).toBe(401);
    expect((await as({ certPresented: '0', certVerified: 'NONE', certFingerprintSHA1: '' })).status).toBe(401);
    // A forwarded leaf counts only with the platform's verdict, and only when it is the certificate verified.
    const b64 = btoa(String.fromCharCode(...new Uint8Array(leaf.rawData)));
    expect((await as(undefined, { 'x-client-cert-der': b64, 'cf-client-cert-der-base64': b64 })).status).toBe(401);
    const other = await newTestCa('other');
    const otherLeaf = await other.issue('CN=other');
    const otherFp = await sha1Hex(otherLeaf.cert.rawData);
    expect((await as({ certPresented: '1', certVerified: 'SUCCESS', certFingerprintSHA1: otherFp }, { 'x-client-cert-der': b64 })).status).toBe(401);
    expect((await as({ certPresented: '1', certVerified: 'SUCCESS', certFingerprintSHA1: fp }, { 'x-client-cert-der': b64 })).status).toBe(200);
  });
});
