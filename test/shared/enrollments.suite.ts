import { decodeJwt, decodeProtectedHeader, importX509, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { MGMT, type TestClient } from '../helpers/client.js';
import { expectConforms } from '../helpers/conform.js';
import { adminApi, expectError, expectNotFound, uniqueName } from './identities.suite.js';
import type { EnrollmentStore } from './enrollment-fixtures.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function sha1Hex(der: ArrayBuffer): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest('SHA-1', der))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function pemDer(pem: string): ArrayBuffer {
  const b64 = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)).buffer;
}

/** Management enrollments (reference auth-and-pki §5.1, §5.2) through the API as the admin: Node and workerd. */
export function enrollmentsSuite(client: () => TestClient, store: () => EnrollmentStore) {
  const admin = adminApi(client);
  const call = admin.call;
  const future = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

  describe('enrollments: created with the identity', () => {
    it('POST /identities with enrollment.ott makes one ott enrollment whose JWT is exactly the reference one', async () => {
      const before = Date.now();
      const id = await admin.createIdentity({ enrollment: { ott: true, updb: 'ignored-by-precedence' } });
      const detail = expectConforms(await call(`/identities/${id}`), 'detailIdentity');
      const ott = detail.body.data.enrollment.ott;
      expect(Object.keys(detail.body.data.enrollment)).toEqual(['ott']);
      expect(ott.token).toMatch(UUID);
      // Expiry from ZITI_ENROLLMENT_DURATION_MINUTES (default 180).
      const expires = Date.parse(ott.expiresAt);
      expect(expires).toBeGreaterThanOrEqual(before + 180 * 60_000 - 1000);
      expect(expires).toBeLessThanOrEqual(Date.now() + 180 * 60_000 + 1000);

      const serverPem = await store().serverCertPem();
      const header = decodeProtectedHeader(ott.jwt);
      expect(header).toEqual({ alg: 'ES256', kid: await sha1Hex(pemDer(serverPem)), typ: 'JWT' });
      const claims = decodeJwt(ott.jwt);
      expect(Object.keys(claims)).toEqual(['iss', 'sub', 'aud', 'exp', 'jti', 'em', 'ctrls']);
      expect(claims).toEqual({ iss: 'https://localhost:1280', sub: id, aud: [''], exp: Math.floor(expires / 1000), jti: ott.token, em: 'ott', ctrls: null });
      // Verifiable with nothing but the TLS server certificate's key.
      const key = await importX509(serverPem, 'ES256');
      await expect(jwtVerify(ott.jwt, key, { audience: '' })).resolves.toBeTruthy();

      // The token is stored only as a hash, the JWT only sealed.
      const stored = await store().enrollmentRowsText(id);
      expect(stored).not.toContain(ott.token);
      expect(stored).not.toContain(ott.jwt.split('.')[1]);
    });

    it('precedence ott > ottca > updb; updb alone gives a updb enrollment', async () => {
      const id = await admin.createIdentity({ enrollment: { updb: uniqueName('user') } });
      const d = (await call(`/identities/${id}`)).body.data;
      expect(Object.keys(d.enrollment)).toEqual(['updb']);
      expect(decodeJwt(d.enrollment.updb.jwt).em).toBe('updb');
      const list = expectConforms(await call(`/identities/${id}/enrollments`), 'getIdentityEnrollments');
      expect(list.body.data).toHaveLength(1);
      expect(list.body.data[0]).toMatchObject({ id: d.enrollment.updb.id, method: 'updb', identityId: id, token: d.enrollment.updb.token, jwt: d.enrollment.updb.jwt });
      expect(list.body.data[0]).not.toHaveProperty('username');
    });

    it('an unknown ottca CA refuses the identity create and writes nothing', async () => {
      const name = uniqueName('ottca');
      const reply = await call('/identities', { body: { name, isAdmin: false, type: 'User', enrollment: { ottca: 'no-such-ca' } } });
      expectError(reply, 400, 'REFERENCED_ENTITY_NOT_FOUND');
      expect(reply.body.error.cause.field).toBe('caId');
      const found = await call(`/identities?filter=${encodeURIComponent(`name = "${name}"`)}`);
      expect(found.body.data).toEqual([]);
    });

    it('deleting the identity deletes its enrollments', async () => {
      const id = await admin.createIdentity({ enrollment: { ott: true } });
      const enrollmentId = (await call(`/identities/${id}`)).body.data.enrollment.ott.id;
      expect((await call(`/identities/${id}`, { method: 'DELETE' })).status).toBe(200);
      expectNotFound(await call(`/enrollments/${enrollmentId}`), 'enrollment', enrollmentId);
    });
  });

  describe('enrollments: POST /enrollments, list, detail, refresh, delete', () => {
    it('creates, lists, details, refreshes (new token, old one dead) and deletes', async () => {
      const id = await admin.createIdentity();
      const expiresAt = future(60);
      const created = expectConforms(await call('/enrollments', { body: { method: 'ott', identityId: id, expiresAt } }), 'createEnrollment');
      expect(created.status).toBe(201);
      const eid = created.body.data.id;
      expect(created.body.data._links.self.href).toBe(`./enrollments/${eid}`);

      const detail = expectConforms(await call(`/enrollments/${eid}`), 'detailEnrollment');
      const e = detail.body.data;
      expect(e).toMatchObject({ id: eid, method: 'ott', identityId: id, identity: { id, entity: 'identities' }, expiresAt: new Date(Date.parse(expiresAt)).toISOString() });
      expect(decodeJwt(e.jwt)).toMatchObject({ sub: id, jti: e.token, em: 'ott', exp: Math.floor(Date.parse(expiresAt) / 1000) });

      const list = expectConforms(await call(`/enrollments?filter=${encodeURIComponent(`identityId = "${id}"`)}`), 'listEnrollments');
      expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([eid]);
      expect(list.body.meta.pagination.totalCount).toBe(1);

      const later = future(120);
      const refreshed = await call(`/enrollments/${eid}/refresh`, { body: { expiresAt: later } });
      expect(refreshed.status).toBe(200);
      const after = (await call(`/enrollments/${eid}`)).body.data;
      expect(after.token).not.toBe(e.token);
      expect(after.jwt).not.toBe(e.jwt);
      expect(decodeJwt(after.jwt)).toMatchObject({ jti: after.token, exp: Math.floor(Date.parse(later) / 1000) });

      expectError(await call(`/enrollments/${eid}/refresh`, { body: { expiresAt: new Date(Date.now() - 60_000).toISOString() } }), 400, 'COULD_NOT_VALIDATE');
      expectNotFound(await call('/enrollments/nope/refresh', { body: { expiresAt: later } }), 'enrollment', 'nope');

      expect((await call(`/enrollments/${eid}`, { method: 'DELETE' })).status).toBe(200);
      expectNotFound(await call(`/enrollments/${eid}`), 'enrollment', eid);
      expectNotFound(await call(`/enrollments/${eid}`, { method: 'DELETE' }), 'enrollment', eid);
    });

    it('refuses by the rules of §5.1 with the reference codes', async () => {
      const id = await admin.createIdentity();
      const post = (body: Record<string, unknown>) => call('/enrollments', { body: { identityId: id, expiresAt: future(30), ...body } });
      let r = expectError(await post({ method: 'ott', identityId: 'missing' }), 400, 'REFERENCED_ENTITY_NOT_FOUND');
      expect(r.body.error.cause.field).toBe('identityId');
      r = expectError(await post({ method: 'ott', expiresAt: new Date(Date.now() - 1000).toISOString() }), 400, 'REFERENCED_ENTITY_NOT_FOUND');
      expect(r.body.error.cause.field).toBe('expiresAt');
      r = expectError(await post({ method: 'ottca' }), 400, 'REFERENCED_ENTITY_NOT_FOUND');
      expect(r.body.error.cause.field).toBe('caId');
      r = expectError(await post({ method: 'updb' }), 400, 'REFERENCED_ENTITY_NOT_FOUND');
      expect(r.body.error.cause.field).toBe('username');
      expectError(await post({ method: 'nope' }), 400, 'COULD_NOT_VALIDATE');
      expect((await call(`/identities/${id}/enrollments`)).body.data).toEqual([]);

      expect((await post({ method: 'ott' })).status).toBe(201);
      r = expectError(await post({ method: 'ott' }), 409, 'ENROLLMENT_EXISTS');
      expect(r.body.error.cause).toEqual({ field: 'method', reason: 'enrollment of same method exists', value: 'ott' });
      // Another method coexists.
      expect((await post({ method: 'updb', username: uniqueName('user') })).status).toBe(201);
    });

    it('at most one enrollment per method under 50 concurrent creates: one 201, 49 ENROLLMENT_EXISTS', async () => {
      const id = await admin.createIdentity();
      const replies = await Promise.all(Array.from({ length: 50 }, () => call('/enrollments', { body: { method: 'ott', identityId: id, expiresAt: future(30) } })));
      expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
      const refused = replies.filter((r) => r.status !== 201);
      expect(refused).toHaveLength(49);
      for (const r of refused) expectError(r, 409, 'ENROLLMENT_EXISTS');
      expect((await call(`/identities/${id}/enrollments`)).body.data).toHaveLength(1);
    });

    it('is admin only', async () => {
      const anonymous = await client().request(`${MGMT}/enrollments`);
      expectError(anonymous, 401, 'UNAUTHORIZED');
    });
  });
}
