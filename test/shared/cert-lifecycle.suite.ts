import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { CLIENT, type TestClient } from '../helpers/client.js';
import { expectConforms } from '../helpers/conform.js';
import { adminApi, expectError, expectNotFound } from './identities.suite.js';
import type { CertPresenter } from './cert-login.suite.js';
import { newCsr, newTestCa, pemCertificates, sha1Hex } from './pki-helpers.js';

/**
 * The life of a device certificate (reference auth-and-pki §5.1 re-enroll, §5.10, §6.5): extend with a
 * new key, verify, the old certificate stops working; admin extension requests and re-enrollment.
 */
export function certLifecycleSuite(client: () => TestClient, presenter: () => CertPresenter) {
  const admin = adminApi(client);
  const call = admin.call;
  const login = (c: TestClient) => c.request(`${CLIENT}/authenticate?method=cert`, { method: 'POST', body: {} });

  async function enrolled() {
    const id = await admin.createIdentity({ enrollment: { ott: true } });
    const token = (await call(`/identities/${id}`)).body.data.enrollment.ott.token;
    const { csrPem } = await newCsr(id);
    const reply = await client().request(`${CLIENT}/enroll?method=ott&token=${token}`, { method: 'POST', raw: csrPem, headers: { 'content-type': 'text/plain' } });
    if (reply.status !== 200) throw new Error(reply.text);
    const chain = pemCertificates(reply.body.data.cert);
    const authenticatorId = (await call(`/identities/${id}/authenticators`)).body.data[0].id as string;
    return { id, chain, authenticatorId };
  }

  describe('certificate extension', () => {
    it('extend with a new key, verify: only the new certificate authenticates afterwards', async () => {
      const { id, chain, authenticatorId } = await enrolled();
      const oldClient = presenter().client(chain);
      const session = (await login(oldClient)).body.data.token;

      // The admin asks for an extension with a key roll.
      expect((await call(`/authenticators/${authenticatorId}/request-extend`, { body: { rollKeys: true } })).status).toBe(200);
      const flagged = (await call(`/authenticators/${authenticatorId}`)).body.data;
      expect(flagged).toMatchObject({ isExtendRequested: true, isKeyRollRequested: true });
      // Existing sessions see the request live; new logins get it in the body and the header (§1.3, §1.8).
      expect((await client().get(`${CLIENT}/current-api-session`, session)).body.data).toMatchObject({ isCertExtendRequested: true, isCertKeyRollRequested: true });
      const relogin = await login(oldClient);
      expect(relogin.body.data).toMatchObject({ isCertExtendRequested: true, isCertKeyRollRequested: true });
      expect(relogin.headers.get('ziti-authenticator-extend-requested')).toBe('true, true');

      const { csrPem } = await newCsr(id);
      const ext = expectConforms(await oldClient.request(`${CLIENT}/current-identity/authenticators/${authenticatorId}/extend`, { body: { clientCertCsr: csrPem }, token: session }), 'extendCurrentIdentityAuthenticator', 'client');
      const newChain = pemCertificates(ext.body.data.clientCert);
      expect(newChain).toHaveLength(2);
      expect(pemCertificates(ext.body.data.ca)).toHaveLength(2);
      expect(await newChain[0].verify({ publicKey: chain[1].publicKey, signatureOnly: true })).toBe(true);
      const newClient = presenter().client(newChain);

      // Pending: the old certificate still works, the new one does not.
      expect((await login(oldClient)).status).toBe(200);
      expectError(await login(newClient), 401, 'INVALID_AUTH');

      expectError(await client().request(`${CLIENT}/current-identity/authenticators/${authenticatorId}/extend-verify`, { body: { clientCert: chain[0].toString('pem') }, token: session }), 400, 'INVALID_CLIENT_CERT');
      expectError(await client().request(`${CLIENT}/current-identity/authenticators/${authenticatorId}/extend-verify`, { body: { clientCert: 'mangled' }, token: session }), 400, 'INVALID_CLIENT_CERT');
      const verified = await client().request(`${CLIENT}/current-identity/authenticators/${authenticatorId}/extend-verify`, { body: { clientCert: ext.body.data.clientCert }, token: session });
      expect(verified.status, verified.text).toBe(200);

      expectError(await login(oldClient), 401, 'INVALID_AUTH');
      const fresh = await login(newClient);
      expect(fresh.status).toBe(200);
      expect(fresh.body.data.identityId).toBe(id);
      expect((await client().get(`${CLIENT}/current-api-session`, session)).body.data).not.toHaveProperty('isCertExtendRequested');
      const a = (await call(`/authenticators/${authenticatorId}`)).body.data;
      expect(a).toMatchObject({ fingerprint: await sha1Hex(newChain[0].rawData), isExtendRequested: false, isKeyRollRequested: false, lastExtendRolledKeys: true });
      // The session's certificates moved to the new one.
      const certs = (await client().get(`${CLIENT}/current-api-session/certificates`, session)).body.data;
      expect(certs.map((c: { fingerprint: string }) => c.fingerprint)).toEqual([await sha1Hex(newChain[0].rawData)]);
      // Nothing pending any more.
      expectError(await client().request(`${CLIENT}/current-identity/authenticators/${authenticatorId}/extend-verify`, { body: { clientCert: ext.body.data.clientCert }, token: session }), 409, 'CAN_NOT_UPDATE_AUTHENTICATOR');
    });

    it('refuses without the current certificate, for another identity, for updb, for unknown ids and bad CSRs', async () => {
      const a = await enrolled();
      const b = await enrolled();
      const session = (await login(presenter().client(a.chain))).body.data.token;
      const { csrPem } = await newCsr(a.id);
      const extend = (c: TestClient, id: string, csr = csrPem) => c.request(`${CLIENT}/current-identity/authenticators/${id}/extend`, { body: { clientCertCsr: csr }, token: session });
      expectError(await extend(client(), a.authenticatorId), 401, 'UNAUTHORIZED');
      expectError(await extend(presenter().client(a.chain), b.authenticatorId), 401, 'UNAUTHORIZED');
      expectError(await extend(presenter().client(b.chain), a.authenticatorId), 401, 'UNAUTHORIZED');
      expectNotFound(await extend(presenter().client(a.chain), 'nope'), 'authenticator', 'nope');
      expectError(await extend(presenter().client(a.chain), a.authenticatorId, 'garbage'), 400, 'COULD_NOT_PROCESS_CSR');
      const user = await admin.createUser();
      expectError(await extend(presenter().client(a.chain), user.authenticatorId), 409, 'CAN_NOT_UPDATE_AUTHENTICATOR');
      expectError(await client().request(`${CLIENT}/current-identity/authenticators/${a.authenticatorId}/extend-verify`, { body: { clientCert: a.chain[0].toString('pem') }, token: session }), 409, 'CAN_NOT_UPDATE_AUTHENTICATOR');
    });

    it('request-extend: 401 for a updb authenticator, 404 for an unknown one; the identity-wide form flags every cert authenticator', async () => {
      const user = await admin.createUser();
      const r = expectError(await call(`/authenticators/${user.authenticatorId}/request-extend`, { body: { rollKeys: false } }), 401, 'UNAUTHORIZED');
      expect(r.body.error.cause.message).toBe('authenticator is not a certificate authenticator');
      expectNotFound(await call('/authenticators/nope/request-extend', { body: {} }), 'authenticator', 'nope');
      const a = await enrolled();
      expect((await call(`/identities/${a.id}/request-extend`, { body: { rollKeys: false } })).status).toBe(200);
      expect((await call(`/authenticators/${a.authenticatorId}`)).body.data).toMatchObject({ isExtendRequested: true, isKeyRollRequested: false });
    });
  });

  describe('re-enroll', () => {
    it('a cert authenticator becomes an ott enrollment; its sessions end; the device enrolls again', async () => {
      const a = await enrolled();
      const session = (await login(presenter().client(a.chain))).body.data.token;
      const reply = expectConforms(await call(`/authenticators/${a.authenticatorId}/re-enroll`, { body: { expiresAt: new Date(Date.now() + 3_600_000).toISOString() } }), 'reEnrollAuthenticator');
      expect(reply.status).toBe(201);
      const enrollment = (await call(`/enrollments/${reply.body.data.id}`)).body.data;
      expect(enrollment).toMatchObject({ method: 'ott', identityId: a.id });
      expect(reply.body.data._links.self.href).toBe(`./enrollments/${reply.body.data.id}`);
      expectNotFound(await call(`/authenticators/${a.authenticatorId}`), 'authenticator', a.authenticatorId);
      expectError(await client().get(`${CLIENT}/current-identity`, session), 401, 'UNAUTHORIZED');
      expectError(await login(presenter().client(a.chain)), 401, 'INVALID_AUTH');
      const { csrPem } = await newCsr(a.id);
      expect((await client().request(`${CLIENT}/enroll?method=ott&token=${enrollment.token}`, { method: 'POST', raw: csrPem, headers: { 'content-type': 'text/plain' } })).status).toBe(200);
    });

    it('a updb authenticator becomes a updb enrollment with the same username', async () => {
      const user = await admin.createUser();
      const reply = await call(`/authenticators/${user.authenticatorId}/re-enroll`, { body: { expiresAt: new Date(Date.now() + 3_600_000).toISOString() } });
      expect(reply.status, reply.text).toBe(201);
      const token = (await call(`/enrollments/${reply.body.data.id}`)).body.data.token;
      const done = await client().request(`${CLIENT}/enroll/updb?token=${token}`, { body: { password: 'renewed-Passw0rd' } });
      expect(done.body.data).toEqual({ username: user.username });
      expect((await admin.login(user.username, 'renewed-Passw0rd')).status).toBe(200);
      expectNotFound(await call('/authenticators/nope/re-enroll', { body: { expiresAt: new Date(Date.now() + 60_000).toISOString() } }), 'authenticator', 'nope');
    });
  });

  describe('admin cert authenticators, enrollment JWKS and challenge', () => {
    it('registers a certificate of a known CA, once; refuses unknown CAs and several certificates', async () => {
      const user = await admin.createUser();
      const session = (await admin.login(user.username, user.password)).body.data.token;
      const issued = await client().request(`${CLIENT}/current-api-session/certificates`, { body: { csr: (await newCsr(user.identityId)).csrPem }, token: session });
      const [leaf] = pemCertificates(issued.body.data.certificate);
      const target = await admin.createIdentity();
      const created = await call('/authenticators', { body: { method: 'cert', identityId: target, certPem: leaf.toString('pem') } });
      expect(created.status, created.text).toBe(201);
      expect((await call(`/authenticators/${created.body.data.id}`)).body.data).toMatchObject({ method: 'cert', fingerprint: await sha1Hex(leaf.rawData), identityId: target });
      expect((await login(presenter().client([leaf]))).body.data.identityId).toBe(target);
      const other = await admin.createIdentity();
      expect((await call('/authenticators', { body: { method: 'cert', identityId: other, certPem: leaf.toString('pem') } })).status).toBeGreaterThanOrEqual(400);
      const stranger = await newTestCa('stranger');
      const strange = await stranger.issue('CN=x');
      expectError(await call('/authenticators', { body: { method: 'cert', identityId: other, certPem: strange.pem } }), 400, 'CERT_FAILED_VALIDATION');
      expectError(await call('/authenticators', { body: { method: 'cert', identityId: other, certPem: strange.pem + stranger.pem } }), 400, 'COULD_NOT_PARSE_PEM_BLOCK');
      // PUT/PATCH cannot set credentials on a cert authenticator.
      expectError(await call(`/authenticators/${created.body.data.id}`, { method: 'PATCH', body: { password: 'a-new-password' } }), 409, 'CAN_NOT_UPDATE_AUTHENTICATOR');
    });

    it('GET /enroll/jwks verifies enrollment JWTs; POST /enroll/challenge signs a nonce with that key', async () => {
      const jwks = expectConforms(await client().get(`${CLIENT}/enroll/jwks`), 'getEnrollmentJwks', 'client').body;
      expect(jwks.keys).toHaveLength(1);
      const id = await admin.createIdentity({ enrollment: { ott: true } });
      const jwt = (await call(`/identities/${id}`)).body.data.enrollment.ott.jwt;
      await expect(jwtVerify(jwt, createLocalJWKSet(jwks), { audience: '' })).resolves.toBeTruthy();
      expect(decodeJwt(jwt).sub).toBe(id);

      const nonce = crypto.randomUUID();
      const ch = expectConforms(await client().request(`${CLIENT}/enroll/challenge`, { body: { nonce, keyId: jwks.keys[0].kid } }), 'enrollmentChallenge', 'client').body;
      expect(ch.algorithm).toBe('ES256');
      const key = await crypto.subtle.importKey('jwk', { kty: 'EC', crv: 'P-256', x: jwks.keys[0].x, y: jwks.keys[0].y }, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
      const sig = Uint8Array.from(atob(ch.signature.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      expect(await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, sig, new TextEncoder().encode(nonce))).toBe(true);
      expect(pemCertificates(ch.caPool)).toHaveLength(2);
      expectError(await client().request(`${CLIENT}/enroll/challenge`, { body: { nonce, keyId: 'nope' } }), 400, 'COULD_NOT_VALIDATE');
    });
  });
}
