import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { CLIENT, type TestClient } from '../helpers/client.js';
import { expectConforms } from '../helpers/conform.js';
import { adminApi, expectError, expectNotFound, uniqueName } from './identities.suite.js';
import type { CertPresenter } from './cert-login.suite.js';
import { newTestCa, sha1Hex, type TestCa } from './pki-helpers.js';

/**
 * Third-party CAs (reference auth-and-pki §7), OTTCA and CA auto-enrollment (§5.5, §5.7) and login
 * through a CA (§3.5). The presenter must show the app the whole chain (Node; Workers with the
 * operator's forwarded-certificate header).
 */
export function casSuite(client: () => TestClient, presenter: () => CertPresenter) {
  const admin = adminApi(client);
  const call = admin.call;
  const flags = { isAutoCaEnrollmentEnabled: true, isOttCaEnrollmentEnabled: true, isAuthEnabled: true };

  async function createCa(ca: TestCa, body: Record<string, unknown> = {}) {
    const reply = await call('/cas', { body: { name: uniqueName('ca'), certPem: ca.pem, identityRoles: ['from-ca'], ...flags, ...body } });
    if (reply.status !== 201) throw new Error(`create CA failed: ${reply.text}`);
    return reply.body.data.id as string;
  }

  async function verify(ca: TestCa, id: string) {
    const token = (await call(`/cas/${id}`)).body.data.verificationToken;
    const proof = await ca.issue(`CN=${token}`);
    return call(`/cas/${id}/verify`, { method: 'POST', raw: proof.pem, headers: { 'content-type': 'text/plain' } });
  }

  const login = (c: TestClient) => c.request(`${CLIENT}/authenticate?method=cert`, { method: 'POST', body: {} });

  describe('cas: create, detail, verify, jwt', () => {
    it('creates an unverified CA, proves possession, refuses a second verification', async () => {
      const ca = await newTestCa('third-party');
      // Sent as Go's PEM encoder writes it, ending in a newline.
      const sentPem = `${ca.pem.trimEnd()}\n`;
      const created = expectConforms(await call('/cas', { body: { name: uniqueName('ca'), certPem: sentPem, identityRoles: ['b', 'a'], isVerified: true, ...flags, identityNameFormat: '' } }), 'createCa');
      const id = created.body.data.id;
      const d = expectConforms(await call(`/cas/${id}`), 'detailCa').body.data;
      expect(d).toMatchObject({ id, isVerified: false, fingerprint: await sha1Hex(ca.cert.rawData), identityRoles: ['a', 'b'], identityNameFormat: '[caName]-[commonName]', ...flags });
      expect(d.verificationToken).toMatch(/^[0-9A-Za-z.-]{6,}$/);

      // Wrong CN, wrong signer, not a certificate, not PEM.
      expectError(await call(`/cas/${id}/verify`, { method: 'POST', raw: (await ca.issue('CN=wrong')).pem, headers: { 'content-type': 'text/plain' } }), 400, 'INVALID_COMMON_NAME');
      const other = await newTestCa('other');
      expectError(await call(`/cas/${id}/verify`, { method: 'POST', raw: (await other.issue(`CN=${d.verificationToken}`)).pem, headers: { 'content-type': 'text/plain' } }), 400, 'CERTIFICATE_FAILED_VALIDATION');
      expectError(await call(`/cas/${id}/verify`, { method: 'POST', raw: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n', headers: { 'content-type': 'text/plain' } }), 400, 'EXPECTED_PEM_CERTIFICATE');
      expectError(await call(`/cas/${id}/verify`, { method: 'POST', raw: 'hello', headers: { 'content-type': 'text/plain' } }), 400, 'COULD_NOT_PARSE_BODY');
      expectError(await call(`/cas/${id}/verify`, { method: 'POST', raw: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', headers: { 'content-type': 'text/plain' } }), 400, 'COULD_NOT_PARSE_DER_BLOCK');
      expect((await verify(ca, id)).status).toBe(200);
      expect((await call(`/cas/${id}`)).body.data.isVerified).toBe(true);
      expectError(await verify(ca, id), 409, 'CA_ALREADY_VERIFIED');
      expectNotFound(await call('/cas/nope/verify', { method: 'POST', raw: 'x', headers: { 'content-type': 'text/plain' } }), 'ca', 'nope');

      const jwtReply = await call(`/cas/${id}/jwt`);
      expect(jwtReply.headers.get('content-type')).toBe('application/jwt');
      expect(decodeProtectedHeader(jwtReply.text).alg).toBe('ES256');
      expect(decodeJwt(jwtReply.text)).toEqual({ iss: 'https://localhost:1280/', sub: id, aud: ['openziti-enroller'], jti: id, em: 'ca', ctrls: null });
    });

    it('returns certPem exactly as sent (trailing newline kept) from the detail, the list, and after PUT and PATCH', async () => {
      // Go's PEM encoder ends every block with a newline; ca_test.go compares certPem for exact equality.
      const ca = await newTestCa('exact-pem');
      const pem = ca.pem.endsWith('\n') ? ca.pem : `${ca.pem}\n`;
      const name = uniqueName('ca');
      const id = expectConforms(await call('/cas', { body: { name, certPem: pem, identityRoles: ['r'], ...flags } }), 'createCa').body.data.id;
      const detail = async () => expectConforms(await call(`/cas/${id}`), 'detailCa').body.data.certPem;
      const listed = async () => expectConforms(await call(`/cas?filter=${encodeURIComponent(`id="${id}"`)}`), 'listCas').body.data.map((c: { certPem: string }) => c.certPem);
      expect(await detail()).toBe(pem);
      expect(await listed()).toEqual([pem]);

      const put = await call(`/cas/${id}`, { method: 'PUT', body: { name: `${name}-put`, identityRoles: ['s'], identityNameFormat: '[caName]-[commonName]', ...flags, isAuthEnabled: false } });
      expect(put.status, put.text).toBe(200);
      expect(await detail()).toBe(pem);
      expect(await listed()).toEqual([pem]);
      const patch = await call(`/cas/${id}`, { method: 'PATCH', body: { isAuthEnabled: true } });
      expect(patch.status, patch.text).toBe(200);
      expect(await detail()).toBe(pem);

      // Surrounding whitespace is kept as well; the fingerprint is the certificate's either way.
      const padded = await newTestCa('padded-pem');
      const paddedPem = `\n${padded.pem.trimEnd()}\n\n`;
      const paddedId = expectConforms(await call('/cas', { body: { name: uniqueName('ca'), certPem: paddedPem, identityRoles: [], ...flags } }), 'createCa').body.data.id;
      expect((await call(`/cas/${paddedId}`)).body.data).toMatchObject({ certPem: paddedPem, fingerprint: await sha1Hex(padded.cert.rawData) });
    });

    it('refuses a duplicate certificate, a non-CA certificate, bad PEM and a SCHEME matcher off SAN_URI', async () => {
      const ca = await newTestCa('dup');
      await createCa(ca);
      let r = expectError(await call('/cas', { body: { name: uniqueName('ca'), certPem: ca.pem, identityRoles: [], ...flags } }), 400, 'COULD_NOT_VALIDATE');
      expect(r.body.error.cause.field).toBe('certPem');
      const leaf = await ca.issue('CN=leaf');
      expectError(await call('/cas', { body: { name: uniqueName('ca'), certPem: leaf.pem, identityRoles: [], ...flags } }), 400, 'CERTIFICATE_IS_NOT_CA');
      r = expectError(await call('/cas', { body: { name: uniqueName('ca'), certPem: 'nope', identityRoles: [], ...flags } }), 400, 'COULD_NOT_VALIDATE');
      expect(r.body.error.cause.field).toBe('certPem');
      const claim = { location: 'COMMON_NAME', matcher: 'SCHEME', matcherCriteria: 'spiffe', parser: 'NONE', parserCriteria: '', index: 0 };
      r = expectError(await call('/cas', { body: { name: uniqueName('ca'), certPem: (await newTestCa('x')).pem, identityRoles: [], ...flags, externalIdClaim: claim } }), 400, 'REFERENCED_ENTITY_NOT_FOUND');
      expect(r.body.error.cause.field).toBe('matcher');
    });
  });

  describe('ottca, ca auto-enrollment and login through a CA', () => {
    it('ottca: a certificate from the enrollment CA becomes the cert authenticator; login is gated by the CA flags', async () => {
      const ca = await newTestCa('ottca');
      const caId = await createCa(ca);
      const id = await admin.createIdentity({ enrollment: { ottca: caId } });
      const detail = (await call(`/identities/${id}`)).body.data;
      expect(detail.enrollment.ottca.caId).toBe(caId);
      expect(detail.enrollment.ottca.ca).toMatchObject({ id: caId, entity: 'cas', name: (await call(`/cas/${caId}`)).body.data.name });
      const token = detail.enrollment.ottca.token;
      const leaf = await ca.issue(`CN=${id}`);

      // Without a certificate, or with one from another CA: refused, token kept.
      expectError(await client().request(`${CLIENT}/enroll/ottca`, { body: { token } }), 400, 'CERTIFICATE_FAILED_VALIDATION');
      const stranger = await newTestCa('stranger');
      const wrong = await stranger.issue('CN=x');
      expectError(await presenter().client([wrong.cert]).request(`${CLIENT}/enroll/ottca`, { body: { token } }), 400, 'CERTIFICATE_FAILED_VALIDATION');

      const ok = await presenter().client([leaf.cert, ca.cert]).request(`${CLIENT}/enroll/ottca`, { body: { token } });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.data).toEqual({});
      const [auth] = (await call(`/identities/${id}/authenticators`)).body.data;
      expect(auth).toMatchObject({ method: 'cert', isIssuedByNetwork: false, fingerprint: await sha1Hex(leaf.cert.rawData) });

      // Login needs the CA verified and auth-enabled (§3.5).
      expectError(await login(presenter().client([leaf.cert])), 401, 'INVALID_AUTH');
      expect((await verify(ca, caId)).status).toBe(200);
      const s = await login(presenter().client([leaf.cert]));
      expect(s.status, s.text).toBe(200);
      expect(s.body.data).toMatchObject({ identityId: id, isCertExtendable: false });
      expect((await call(`/cas/${caId}`, { method: 'PATCH', body: { isAuthEnabled: false } })).status).toBe(200);
      expectError(await login(presenter().client([leaf.cert])), 401, 'INVALID_AUTH');
      expect((await call(`/cas/${caId}`, { method: 'PATCH', body: { isAuthEnabled: true } })).status).toBe(200);
      expect((await login(presenter().client([leaf.cert]))).status).toBe(200);

      // Deleting the CA: its pending enrollments go, identities stay, login through it stops.
      const pendingId = await admin.createIdentity({ enrollment: { ottca: caId } });
      const pendingEnrollment = (await call(`/identities/${pendingId}`)).body.data.enrollment.ottca.id;
      expect((await call(`/cas/${caId}`, { method: 'DELETE' })).status).toBe(200);
      expectNotFound(await call(`/enrollments/${pendingEnrollment}`), 'enrollment', pendingEnrollment);
      expect((await call(`/identities/${id}`)).status).toBe(200);
      expectError(await login(presenter().client([leaf.cert])), 401, 'INVALID_AUTH');
    });

    it('ottca with OTT-CA enrollment disabled on the CA is ENROLLMENT_CA_NOT_VALID', async () => {
      const ca = await newTestCa('ottca-off');
      const caId = await createCa(ca, { isOttCaEnrollmentEnabled: false });
      const id = await admin.createIdentity({ enrollment: { ottca: caId } });
      const token = (await call(`/identities/${id}`)).body.data.enrollment.ottca.token;
      const leaf = await ca.issue(`CN=${id}`);
      expectError(await presenter().client([leaf.cert]).request(`${CLIENT}/enroll?method=ottca&token=${token}`, { body: {} }), 400, 'ENROLLMENT_CA_NOT_VALID');
    });

    it('ca auto-enrollment names identities by the format, appends the collision counter cumulatively, then logs in', async () => {
      const ca = await newTestCa('auto');
      const caName = uniqueName('auto');
      const caId = await createCa(ca, { name: caName });
      const device = await ca.issue('CN=dev1');
      // Not verified yet: no CA verifies the certificate.
      expectError(await presenter().client([device.cert]).request(`${CLIENT}/enroll?method=ca`, { method: 'POST' }), 400, 'CERT_FAILED_VALIDATION');
      expect((await verify(ca, caId)).status).toBe(200);

      const names: string[] = [];
      for (let i = 0; i < 3; i++) {
        const leaf = i === 0 ? device : await ca.issue('CN=dev1');
        const r = await presenter().client([leaf.cert]).request(`${CLIENT}/enroll?method=ca`, { method: 'POST' });
        expect(r.status, r.text).toBe(200);
        const fp = await sha1Hex(leaf.cert.rawData);
        const auth = (await call(`/authenticators?filter=${encodeURIComponent(`certFingerprint = "${fp}"`)}`)).body.data[0];
        names.push(auth.identity.name);
      }
      expect(names).toEqual([`${caName}-dev1`, `${caName}-dev1000001`, `${caName}-dev1000001000002`]);
      const one = (await call(`/identities?filter=${encodeURIComponent(`name = "${caName}-dev1"`)}`)).body.data[0];
      expect(one.roleAttributes).toEqual(['from-ca']);
      // Enrolled twice with one certificate: CERT_IN_USE.
      const again = await presenter().client([device.cert]).request(`${CLIENT}/enroll/ca`, { method: 'POST' });
      expectError(again, 409, 'CERT_IN_USE');
      expect(again.body.error.cause.data.fingerprint).toBe(await sha1Hex(device.cert.rawData));
      const s = await login(presenter().client([device.cert]));
      expect(s.status, s.text).toBe(200);
      expect(s.body.data.identityId).toBe(one.id);
    });

    it('an externalId claim makes identities without authenticators that log in by externalId', async () => {
      const ca = await newTestCa('spiffe');
      const claim = { location: 'SAN_URI', matcher: 'SCHEME', matcherCriteria: 'spiffe', parser: 'NONE', parserCriteria: '', index: 0 };
      const caId = await createCa(ca, { externalIdClaim: claim, identityNameFormat: '[requestedName]' });
      expect((await verify(ca, caId)).status).toBe(200);
      const uri = `spiffe://example.org/workload/${crypto.randomUUID()}`;
      const leaf = await ca.issue('CN=workload', { sans: [{ type: 'url', value: uri }] });
      const requested = uniqueName('workload');
      const r = await presenter().client([leaf.cert]).request(`${CLIENT}/enroll?method=ca`, { body: { name: requested } });
      expect(r.status, r.text).toBe(200);
      const identity = (await call(`/identities?filter=${encodeURIComponent(`name = "${requested}"`)}`)).body.data[0];
      expect(identity.externalId).toBe(uri);
      expect((await call(`/identities/${identity.id}/authenticators`)).body.data).toEqual([]);
      const s = await login(presenter().client([leaf.cert]));
      expect(s.status, s.text).toBe(200);
      expect(s.body.data).toMatchObject({ identityId: identity.id, authenticatorId: 'internal', isCertExtendable: false });
      const noClaim = await ca.issue('CN=no-san');
      expectError(await presenter().client([noClaim.cert]).request(`${CLIENT}/enroll/ca`, { method: 'POST' }), 400, 'MISSING_CERT_CLAIM');
    });
  });
}

