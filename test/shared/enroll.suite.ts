import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { CLIENT, type TestClient } from '../helpers/client.js';
import { expectConforms } from '../helpers/conform.js';
import { x509 } from '../../src/pki/x509.js';
import type { EnrollmentStore } from './enrollment-fixtures.js';
import { adminApi, expectError, uniqueName } from './identities.suite.js';
import { cacertsBundle, newCsr, pemCertificates, sha1Hex } from './pki-helpers.js';

/** `/enroll` with OTT and UPDB tokens (reference auth-and-pki §5.3, §5.4, §5.6, §6.2–§6.4): Node and workerd. */
export function enrollSuite(client: () => TestClient, store: () => EnrollmentStore) {
  const admin = adminApi(client);
  const call = admin.call;
  const enroll = (query: string, raw: string, headers: Record<string, string> = { 'content-type': 'text/plain', accept: 'application/json' }) =>
    client().request(`${CLIENT}/enroll?${query}`, { method: 'POST', raw, headers });

  /** A fresh identity with one pending enrollment; returns its id and the enrollment's token. */
  async function pending(enrollment: Record<string, unknown> = { ott: true }) {
    const id = await admin.createIdentity({ enrollment });
    const e = (await call(`/identities/${id}`)).body.data.enrollment;
    const entry = e.ott ?? e.updb ?? e.ottca;
    return { id, token: entry.token as string, jwt: entry.jwt as string, enrollmentId: entry.id as string };
  }

  describe('enroll: ott', () => {
    it('an SDK-style legacy request gets a client certificate that chains to the cacerts bundle; the token is then spent', async () => {
      const { id, token, jwt } = await pending();
      const claims = decodeJwt(jwt);
      const { csrPem } = await newCsr(id, { iss: claims.iss as string });
      const reply = expectConforms(await enroll(`method=ott&token=${token}`, csrPem), 'enroll', 'client');
      expect(reply.headers.get('content-type')).toContain('application/json');
      const chain = pemCertificates(reply.body.data.cert);
      expect(chain).toHaveLength(2);
      const [leaf, signer] = chain;

      const bundle = cacertsBundle((await client().request(`${CLIENT}/.well-known/est/cacerts`)).text);
      const root = bundle.find((c) => c.subject === c.issuer)!;
      expect(bundle.some((c) => c.equal(signer))).toBe(true);
      expect(await leaf.verify({ publicKey: signer.publicKey, signatureOnly: true })).toBe(true);
      expect(await signer.verify({ publicKey: root.publicKey, signatureOnly: true })).toBe(true);

      // Profile §6.2: CSR subject verbatim, clientAuth, critical key usage, not a CA, one year.
      expect(leaf.subject).toBe(new x509.Pkcs10CertificateRequest(csrPem).subject);
      expect(leaf.getExtension(x509.ExtendedKeyUsageExtension)!.usages).toEqual([x509.ExtendedKeyUsage.clientAuth]);
      const ku = leaf.getExtension(x509.KeyUsagesExtension)!;
      expect(ku.critical).toBe(true);
      expect(ku.usages).toBe(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.dataEncipherment);
      expect(leaf.getExtension(x509.BasicConstraintsExtension)).toBeNull();
      const days = (leaf.notAfter.getTime() - leaf.notBefore.getTime()) / 86_400_000;
      expect(days).toBeGreaterThan(364);
      expect(days).toBeLessThan(367);

      // The identity now has a network-issued cert authenticator with the leaf's fingerprint, and no enrollment.
      const detail = (await call(`/identities/${id}`)).body.data;
      expect(detail.enrollment).toEqual({});
      expect(detail.authenticators.cert.fingerprint).toBe(await sha1Hex(leaf.rawData));
      const [auth] = await store().authenticatorsOf(id);
      expect(auth).toMatchObject({ method: 'cert', isIssuedByNetwork: true, certFingerprint: await sha1Hex(leaf.rawData) });

      expectError(await enroll(`method=ott&token=${token}`, csrPem), 400, 'INVALID_ENROLLMENT_TOKEN');
    });

    it('the token is consumed exactly once under 50 concurrent enrollments: 1 success, 49 INVALID_ENROLLMENT_TOKEN, one authenticator', async () => {
      const { id, token } = await pending();
      const csrs = await Promise.all(Array.from({ length: 50 }, () => newCsr(id)));
      const replies = await Promise.all(csrs.map((c) => enroll(`method=ott&token=${token}`, c.csrPem)));
      expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
      const refused = replies.filter((r) => r.status !== 200);
      expect(refused).toHaveLength(49);
      for (const r of refused) expectError(r, 400, 'INVALID_ENROLLMENT_TOKEN');
      const auths = await store().authenticatorsOf(id);
      expect(auths).toHaveLength(1);
      const winner = replies.find((r) => r.status === 200)!;
      expect(auths[0].certFingerprint).toBe(await sha1Hex(pemCertificates(winner.body.data.cert)[0].rawData));
    });

    it('spec mode and /enroll/ott take the CSR from JSON; no method means the enrollment own one', async () => {
      const a = await pending();
      const r1 = await client().request(`${CLIENT}/enroll?token=${a.token}`, { body: { clientCsr: (await newCsr(a.id)).csrPem } });
      expect(r1.status, r1.text).toBe(200);
      expect(pemCertificates(r1.body.data.cert)).toHaveLength(2);
      const b = await pending();
      const r2 = expectConforms(await client().request(`${CLIENT}/enroll/ott`, { body: { token: b.token, clientCsr: (await newCsr(b.id)).csrPem } }), 'enrollOtt', 'client');
      expect(pemCertificates(r2.body.data.cert)).toHaveLength(2);
      // The root alias works too (clients derive <iss>/edge/client/v1/enroll, some post to /enroll).
      const c = await pending();
      const r3 = await client().request(`/enroll?method=ott&token=${c.token}`, { method: 'POST', raw: (await newCsr(c.id)).csrPem, headers: { 'content-type': 'application/x-pem-file' } });
      expect(r3.status, r3.text).toBe(200);
    });

    it('refuses unknown, foreign, wrong-method, expired and refreshed tokens', async () => {
      const { id, token, enrollmentId } = await pending();
      const { csrPem } = await newCsr(id);
      // A token from another controller's JWT is unknown here.
      expectError(await enroll(`method=ott&token=${crypto.randomUUID()}`, csrPem), 400, 'INVALID_ENROLLMENT_TOKEN');
      // A JWT of another audience (the network JWT, aud openziti-enroller, em network) enrolls nothing.
      const network = (await client().get(`${CLIENT}/network-jwts`)).body.data[0].token;
      expectError(await enroll(`method=ott&token=${decodeJwt(network).jti}`, csrPem), 400, 'INVALID_ENROLLMENT_TOKEN');
      expectError(await enroll(`token=${decodeJwt(network).jti}`, csrPem), 400, 'INVALID_ENROLLMENT_TOKEN');
      expectError(await enroll(`method=updb&token=${token}`, csrPem), 400, 'INVALID_ENROLL_METHOD');
      expectError(await client().request(`${CLIENT}/enroll/updb?token=${token}`, { body: { password: 'a-good-password' } }), 400, 'INVALID_ENROLL_METHOD');

      // Refresh: the old token dies, the new one works.
      expect((await call(`/enrollments/${enrollmentId}/refresh`, { body: { expiresAt: new Date(Date.now() + 3_600_000).toISOString() } })).status).toBe(200);
      expectError(await enroll(`method=ott&token=${token}`, csrPem), 400, 'INVALID_ENROLLMENT_TOKEN');
      const fresh = (await call(`/enrollments/${enrollmentId}`)).body.data.token;
      expect((await enroll(`method=ott&token=${fresh}`, csrPem)).status).toBe(200);

      // Expired.
      const other = await admin.createIdentity();
      const created = await call('/enrollments', { body: { method: 'ott', identityId: other, expiresAt: new Date(Date.now() + 1500).toISOString() } });
      const shortToken = (await call(`/enrollments/${created.body.data.id}`)).body.data.token;
      await new Promise((r) => setTimeout(r, 1700));
      expectError(await enroll(`method=ott&token=${shortToken}`, (await newCsr(other)).csrPem), 400, 'ENROLLMENT_EXPIRED');
    });

    it('malformed, oversized, weak-key CSRs get 400 COULD_NOT_PROCESS_CSR and leave the token unspent', async () => {
      const { id, token } = await pending();
      const good = (await newCsr(id)).csrPem;
      const rsa1024 = (await newCsr(id, { algorithm: { name: 'RSASSA-PKCS1-v1_5', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' } })).csrPem;
      const body = good.split('\n').slice(1, -2).join('');
      const tampered = good.replace(body.slice(40, 44), body.slice(40, 44) === 'AAAA' ? 'BBBB' : 'AAAA');
      const bad = [
        '',
        'not a csr',
        `${good}\n${good}`,
        `${good}\n\n`,
        tampered,
        '-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n',
        `${'x'.repeat(20_000)}${good}`,
        rsa1024,
      ];
      for (const csr of bad) {
        const r = await enroll(`method=ott&token=${token}`, csr);
        expectError(r, 400, 'COULD_NOT_PROCESS_CSR');
      }
      expect((await enroll(`method=ott&token=${token}`, good)).status).toBe(200);
    });

    it('content negotiation: legacy mode with an Accept without JSON is 415, spec mode 406', async () => {
      const { id, token } = await pending();
      const { csrPem } = await newCsr(id);
      expectError(await enroll(`method=ott&token=${token}`, csrPem, { 'content-type': 'application/x-pem-file', accept: 'application/x-pem-file' }), 415, 'UNSUPPORTED_MEDIA');
      const r = await client().request(`${CLIENT}/enroll?token=${token}`, { body: { clientCsr: csrPem }, headers: { accept: 'text/html' } });
      expect(r.status).toBe(406);
      expect(r.body.error.code).toBe('COULD_NOT_VALIDATE');
      // Both refusals left the token usable.
      expect((await enroll(`method=ott&token=${token}`, csrPem, { 'content-type': 'text/plain', accept: 'application/x-pem-file, application/json' })).status).toBe(200);
    });

    it('no request header steers the enrollment JWT: iss is the configured address', async () => {
      const name = uniqueName('steer');
      const reply = await call('/identities', {
        body: { name, isAdmin: false, type: 'User', enrollment: { ott: true } },
        headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http', forwarded: 'host=evil.example' },
      });
      const jwt = (await call(`/identities/${reply.body.data.id}`)).body.data.enrollment.ott.jwt;
      expect(decodeJwt(jwt).iss).toBe('https://localhost:1280');
    });
  });

  describe('enroll: updb', () => {
    it('sets the password chosen by the device; the username is the enrollment one; then password login works', async () => {
      const username = uniqueName('device');
      const { token } = await pending({ updb: username });
      expectError(await client().request(`${CLIENT}/enroll/updb?token=${token}`, { body: { password: 'abc' } }), 400, 'COULD_NOT_VALIDATE');
      const reply = await client().request(`${CLIENT}/enroll/updb?token=${token}`, { body: { password: 'device-Passw0rd', username: 'ignored' } });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data).toEqual({ username });
      expect(reply.text).not.toContain('device-Passw0rd');
      expect((await admin.login(username, 'device-Passw0rd')).status).toBe(200);
      expectError(await client().request(`${CLIENT}/enroll/updb?token=${token}`, { body: { password: 'device-Passw0rd' } }), 400, 'INVALID_ENROLLMENT_TOKEN');
    });

    it("the password the device chooses meets the identity's auth policy", async () => {
      const policy = await call('/auth-policies', {
        body: {
          name: uniqueName('digits'),
          primary: { cert: { allowed: true, allowExpiredCerts: true }, updb: { allowed: true, minPasswordLength: 8, requireSpecialChar: false, requireNumberChar: true, requireMixedCase: false, maxAttempts: 0, lockoutDurationMinutes: 0 }, extJwt: { allowed: false, allowedSigners: [] } },
          secondary: { requireTotp: false },
        },
      });
      expect(policy.status, policy.text).toBe(201);
      const id = await admin.createIdentity({ authPolicyId: policy.body.data.id, enrollment: { updb: uniqueName('device') } });
      const token = (await call(`/identities/${id}`)).body.data.enrollment.updb.token;
      const weak = await client().request(`${CLIENT}/enroll/updb?token=${token}`, { body: { password: 'no-digits-here' } });
      expectError(weak, 400, 'COULD_NOT_VALIDATE');
      expect(weak.text).not.toContain('no-digits-here');
      expect((await client().request(`${CLIENT}/enroll/updb?token=${token}`, { body: { password: 'has-digit-9' } })).status).toBe(200);
    });

    it('through the generic endpoint with a JSON password; 50 concurrent attempts make one authenticator', async () => {
      const username = uniqueName('device');
      const { id, token } = await pending({ updb: username });
      const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => client().request(`${CLIENT}/enroll?token=${token}`, { body: { password: `password-${i}` } })));
      expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of replies.filter((x) => x.status !== 200)) expectError(r, 400, 'INVALID_ENROLLMENT_TOKEN');
      expect(await store().authenticatorsOf(id)).toHaveLength(1);
    });
  });
}
