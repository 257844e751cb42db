import { describe, expect, it } from 'vitest';
import { CLIENT, MGMT, type TestClient } from '../helpers/client.js';
import { expectConforms } from '../helpers/conform.js';
import { x509 } from '../../src/pki/x509.js';
import { adminApi, expectError, expectNotFound } from './identities.suite.js';
import { newCsr, newTestCa, pemCertificates, sha1Hex } from './pki-helpers.js';

/**
 * How a runtime presents a client certificate: Node hands over the DER chain the client sent, Workers
 * the platform-verified SHA-1 fingerprint. `chain` is what the client presents (leaf first).
 */
export interface CertPresenter {
  /** Node: the chain itself is visible to the app (chain checks, improperClientCertChain). */
  seesChain: boolean;
  client(chain: x509.X509Certificate[]): TestClient;
}

/** Certificate login (reference auth-and-pki §3) and session certificates (§3.6, §6.7): Node and workerd. */
export function certLoginSuite(client: () => TestClient, presenter: () => CertPresenter) {
  const admin = adminApi(client);
  const call = admin.call;

  /** An identity enrolled with ott: its chain (leaf + signer) and key. */
  async function enrolled(options: Record<string, unknown> = {}) {
    const id = await admin.createIdentity({ enrollment: { ott: true }, ...options });
    const token = (await call(`/identities/${id}`)).body.data.enrollment.ott.token;
    const { csrPem, keys } = await newCsr(id);
    const reply = await client().request(`${CLIENT}/enroll?method=ott&token=${token}`, { method: 'POST', raw: csrPem, headers: { 'content-type': 'text/plain' } });
    if (reply.status !== 200) throw new Error(`enroll failed: ${reply.text}`);
    return { id, chain: pemCertificates(reply.body.data.cert), keys };
  }

  const login = (c: TestClient, base = CLIENT) => c.request(`${base}/authenticate?method=cert`, { method: 'POST', body: { sdkInfo: { type: 'test', version: '1' }, envInfo: { os: 'linux' } } });

  describe('certificate login', () => {
    it('an enrolled identity logs in with its certificate on both APIs, and the session records the certificate', async () => {
      const { id, chain } = await enrolled();
      const cc = presenter().client(chain);
      for (const base of [CLIENT, MGMT]) {
        const reply = expectConforms(await login(cc, base), 'authenticate', base === CLIENT ? 'client' : 'management');
        const s = reply.body.data;
        expect(reply.headers.get('zt-session')).toBe(s.token);
        expect(s).toMatchObject({ identityId: id, identity: { id }, authQueries: [], isCertExtendable: true, isMfaRequired: false });
        expect(s).not.toHaveProperty('improperClientCertChain');
        const auths = (await call(`/identities/${id}/authenticators`)).body.data;
        expect(s.authenticatorId).toBe(auths[0].id);
        expect((await client().get(`${CLIENT}/current-identity`, s.token)).body.data.id).toBe(id);
      }
      const token = (await login(cc)).body.data.token;
      const list = expectConforms(await client().get(`${CLIENT}/current-api-session/certificates`, token), 'listCurrentApiSessionCertificates', 'client');
      expect(list.body.data).toHaveLength(1);
      const rec = list.body.data[0];
      expect(rec.fingerprint).toBe(await sha1Hex(chain[0].rawData));
      expect(rec.subject).toBe(`CN=${id},DC=https://localhost:1280,O=OpenZiti`);
      expect(rec.validTo).toBe(chain[0].notAfter.toISOString());
      expect(pemCertificates(rec.certificate)[0].equal(chain[0])).toBe(true);
    });

    it('refuses no certificate, an unknown certificate, a disabled identity, a policy without cert, a deleted authenticator', async () => {
      expectError(await login(client()), 401, 'INVALID_AUTH');
      const stranger = await newTestCa('stranger');
      const leaf = await stranger.issue('CN=nobody');
      expectError(await login(presenter().client([leaf.cert, stranger.cert])), 401, 'INVALID_AUTH');

      const a = await enrolled();
      expect((await call(`/identities/${a.id}/disable`, { body: { durationMinutes: 0 } })).status).toBe(200);
      expectError(await login(presenter().client(a.chain)), 401, 'INVALID_AUTH');
      expect((await call(`/identities/${a.id}/enable`, { method: 'POST' })).status).toBe(200);
      expect((await login(presenter().client(a.chain))).status).toBe(200);

      const policy = await call('/auth-policies', {
        body: {
          name: `no-cert-${crypto.randomUUID().slice(0, 8)}`,
          primary: { cert: { allowed: false, allowExpiredCerts: true }, updb: { allowed: true, minPasswordLength: 5, requireSpecialChar: false, requireNumberChar: false, requireMixedCase: false, maxAttempts: 0, lockoutDurationMinutes: 0 }, extJwt: { allowed: false, allowedSigners: [] } },
          secondary: { requireTotp: false },
        },
      });
      expect(policy.status, policy.text).toBe(201);
      const b = await enrolled({ authPolicyId: policy.body.data.id });
      expectError(await login(presenter().client(b.chain)), 401, 'INVALID_AUTH');

      const c = await enrolled();
      const authId = (await call(`/identities/${c.id}/authenticators`)).body.data[0].id;
      const session = (await login(presenter().client(c.chain))).body.data.token;
      expect((await call(`/authenticators/${authId}`, { method: 'DELETE' })).status).toBe(200);
      expectError(await login(presenter().client(c.chain)), 401, 'INVALID_AUTH');
      // Sessions made with the authenticator end with it.
      expectError(await client().get(`${CLIENT}/current-identity`, session), 401, 'UNAUTHORIZED');
    });

    it('one session cannot see, read or delete another session certificates', async () => {
      const a = await enrolled();
      const b = await enrolled();
      const tokenA = (await login(presenter().client(a.chain))).body.data.token;
      const tokenA2 = (await login(presenter().client(a.chain))).body.data.token;
      const tokenB = (await login(presenter().client(b.chain))).body.data.token;
      const certA = (await client().get(`${CLIENT}/current-api-session/certificates`, tokenA)).body.data[0].id;
      for (const other of [tokenA2, tokenB]) {
        const list = (await client().get(`${CLIENT}/current-api-session/certificates`, other)).body.data;
        expect(list.map((x: { id: string }) => x.id)).not.toContain(certA);
        expectNotFound(await client().get(`${CLIENT}/current-api-session/certificates/${certA}`, other), 'apiSessionCertificate', certA);
        expectNotFound(await client().request(`${CLIENT}/current-api-session/certificates/${certA}`, { method: 'DELETE', token: other }), 'apiSessionCertificate', certA);
      }
      expect((await client().get(`${CLIENT}/current-api-session/certificates/${certA}`, tokenA)).status).toBe(200);
    });

    it('a password session obtains a 12-hour session certificate for its own CSR', async () => {
      const user = await admin.createUser();
      const token = (await admin.login(user.username, user.password)).body.data.token;
      const { csrPem } = await newCsr(user.identityId);
      const reply = await client().request(`${CLIENT}/current-api-session/certificates`, { body: { csr: csrPem }, token });
      expectConforms(reply, 'createCurrentApiSessionCertificate', 'client');
      expect(reply.status).toBe(201);
      const [leaf] = pemCertificates(reply.body.data.certificate);
      expect(pemCertificates(reply.body.data.cas).length).toBe(2);
      expect(leaf.notAfter.getTime() - leaf.notBefore.getTime()).toBe(12 * 3600 * 1000);
      const san = leaf.getExtension(x509.SubjectAlternativeNameExtension)!.names.toJSON();
      expect(san).toHaveLength(1);
      expect(san[0].value).toMatch(new RegExp(`^spiffe://[^/]+/identity/${user.identityId}/apiSession/[^/]+/apiSessionCertificate/${reply.body.data.id}$`));
      const detail = (await client().get(`${CLIENT}/current-api-session/certificates/${reply.body.data.id}`, token)).body.data;
      expect(detail.fingerprint).toBe(await sha1Hex(leaf.rawData));
      expectError(await client().request(`${CLIENT}/current-api-session/certificates`, { body: { csr: 'garbage' }, token }), 400, 'COULD_NOT_PROCESS_CSR');
      expect((await client().request(`${CLIENT}/current-api-session/certificates/${reply.body.data.id}`, { method: 'DELETE', token })).status).toBe(200);
      expect((await client().get(`${CLIENT}/current-api-session/certificates`, token)).body.data).toEqual([]);
    });

    it('a leaf sent without its intermediate still logs in, flagged improperClientCertChain (chain-visible runtimes)', async () => {
      if (!presenter().seesChain) return;
      const { chain } = await enrolled();
      const reply = await login(presenter().client([chain[0]]));
      expect(reply.status).toBe(200);
      expect(reply.body.data.improperClientCertChain).toBe(true);
    });
  });
}
