import { describe, expect, it } from 'vitest';
import { CLIENT, type TestClient } from '../helpers/client.js';
import type { CertPresenter } from './cert-login.suite.js';
import { adminApi, expectError, uniqueName } from './identities.suite.js';
import { newCsr, newTestCa, pemCertificates } from './pki-helpers.js';

const N = 50;

/** "At most once" rules of enrollment and certificates under 50 concurrent attempts (the store decides). */
export function enrollmentConcurrencySuite(client: () => TestClient, presenter: () => CertPresenter) {
  const admin = adminApi(client);
  const call = admin.call;

  async function enrolled() {
    const id = await admin.createIdentity({ enrollment: { ott: true } });
    const token = (await call(`/identities/${id}`)).body.data.enrollment.ott.token;
    const reply = await client().request(`${CLIENT}/enroll?method=ott&token=${token}`, { method: 'POST', raw: (await newCsr(id)).csrPem, headers: { 'content-type': 'text/plain' } });
    const chain = pemCertificates(reply.body.data.cert);
    const authenticatorId = (await call(`/identities/${id}/authenticators`)).body.data[0].id as string;
    return { id, chain, authenticatorId };
  }

  describe('enrollment rules under 50 concurrent attempts', () => {
    it('a CA is verified once: one 200, 49 CA_ALREADY_VERIFIED', async () => {
      const ca = await newTestCa('race');
      const id = (await call('/cas', { body: { name: uniqueName('ca'), certPem: ca.pem, identityRoles: [], isAutoCaEnrollmentEnabled: false, isOttCaEnrollmentEnabled: false, isAuthEnabled: false } })).body.data.id;
      const token = (await call(`/cas/${id}`)).body.data.verificationToken;
      const proof = (await ca.issue(`CN=${token}`)).pem;
      const replies = await Promise.all(Array.from({ length: N }, () => call(`/cas/${id}/verify`, { method: 'POST', raw: proof, headers: { 'content-type': 'text/plain' } })));
      expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of replies.filter((x) => x.status !== 200)) expectError(r, 409, 'CA_ALREADY_VERIFIED');
    });

    it('a pending extension is applied once: one 200, 49 CAN_NOT_UPDATE_AUTHENTICATOR', async () => {
      const { id, chain, authenticatorId } = await enrolled();
      const device = presenter().client(chain);
      const session = (await device.request(`${CLIENT}/authenticate?method=cert`, { method: 'POST', body: {} })).body.data.token;
      const ext = await device.request(`${CLIENT}/current-identity/authenticators/${authenticatorId}/extend`, { body: { clientCertCsr: (await newCsr(id)).csrPem }, token: session });
      expect(ext.status, ext.text).toBe(200);
      const replies = await Promise.all(
        Array.from({ length: N }, () => client().request(`${CLIENT}/current-identity/authenticators/${authenticatorId}/extend-verify`, { body: { clientCert: ext.body.data.clientCert }, token: session })),
      );
      expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of replies.filter((x) => x.status !== 200)) expectError(r, 409, 'CAN_NOT_UPDATE_AUTHENTICATOR');
      expect((await presenter().client(pemCertificates(ext.body.data.clientCert)).request(`${CLIENT}/authenticate?method=cert`, { method: 'POST', body: {} })).status).toBe(200);
    });

    it('an authenticator is re-enrolled once: one 201, the rest refused, one enrollment', async () => {
      const { id, authenticatorId } = await enrolled();
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const replies = await Promise.all(Array.from({ length: N }, () => call(`/authenticators/${authenticatorId}/re-enroll`, { body: { expiresAt } })));
      expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
      for (const r of replies.filter((x) => x.status !== 201)) expect([404, 409]).toContain(r.status);
      expect((await call(`/identities/${id}/enrollments`)).body.data).toHaveLength(1);
      expect((await call(`/identities/${id}/authenticators`)).body.data).toEqual([]);
    });

    it('CA auto-enrollment of many devices with one common name gives each its own name', async () => {
      const ca = await newTestCa('crowd');
      const caName = uniqueName('crowd');
      const caId = (await call('/cas', { body: { name: caName, certPem: ca.pem, identityRoles: [], isAutoCaEnrollmentEnabled: true, isOttCaEnrollmentEnabled: false, isAuthEnabled: true } })).body.data.id;
      const token = (await call(`/cas/${caId}`)).body.data.verificationToken;
      expect((await call(`/cas/${caId}/verify`, { method: 'POST', raw: (await ca.issue(`CN=${token}`)).pem, headers: { 'content-type': 'text/plain' } })).status).toBe(200);
      const leaves = await Promise.all(Array.from({ length: 20 }, () => ca.issue('CN=same')));
      const replies = await Promise.all(leaves.map((l) => presenter().client([l.cert]).request(`${CLIENT}/enroll/ca`, { method: 'POST' })));
      expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
      const names = (await call(`/identities?limit=100&filter=${encodeURIComponent(`name contains "${caName}-same"`)}`)).body.data.map((i: { name: string }) => i.name);
      expect(new Set(names).size).toBe(20);
    });
  });
}
