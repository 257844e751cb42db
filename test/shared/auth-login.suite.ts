import { describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, ADMIN_USERNAME, CLIENT, MGMT } from '../helpers/client.js';
import { conformance } from '../helpers/spec-schemas.js';
import type { SuiteContext } from './suite.js';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Password login of the default admin, the current API session and identity, logout: on Node and on workerd. */
export default function authLoginSuite({ client }: SuiteContext): void {
  describe('password authentication', () => {
    it('logs the admin in on both APIs and returns the session in body and headers', async () => {
      for (const api of [CLIENT, MGMT]) {
        const reply = await client().request(`${api}/authenticate?method=password`, {
          body: { username: ADMIN_USERNAME, password: ADMIN_PASSWORD },
        });
        expect(reply.status).toBe(200);
        expect(conformance(api === CLIENT ? 'client' : 'management', 'authenticate', 200, reply.body)).toEqual([]);
        expect(reply.body.meta).toEqual({});
        const data = reply.body.data;
        expect(data.token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(reply.headers.get('zt-session')).toBe(data.token);
        expect(reply.headers.get('expiration-seconds')).toBe('1800');
        expect(reply.headers.get('expires-at')).toBe(data.expiresAt);
        expect(data.id).toMatch(/^c[0-9a-z]{24}$/);
        expect(data.identity).toMatchObject({ entity: 'identities', id: data.identityId, name: 'Default Admin' });
        expect(data.identity._links.self.href).toBe(`./identities/${data.identityId}`);
        expect(data.authenticatorId).toBeTruthy();
        expect(data.authQueries).toEqual([]);
        expect(data.isMfaRequired).toBe(false);
        expect(data.isMfaComplete).toBe(false);
        expect(data.isCertExtendable).toBe(false);
        expect(data).not.toHaveProperty('improperClientCertChain');
        expect(data).not.toHaveProperty('isCertExtendRequested');
        expect(data.expirationSeconds).toBe(1800);
        expect(data.lastActivityAt).toMatch(ISO_MS);
        expect(data.cachedLastActivityAt).toBe(data.lastActivityAt);
        expect(Date.parse(data.expiresAt) - Date.parse(data.lastActivityAt)).toBe(1800 * 1000);
        expect(data.configTypes).toEqual([]);
        expect(data.tags).toEqual({});
        expect(data._links).toEqual({ self: { href: `./api-sessions/${data.id}` }, sessions: { href: `./api-sessions/${data.id}/sessions` } });
        expect(reply.text).not.toContain(ADMIN_PASSWORD);
      }
    });

    it('ignores a session header on authenticate: every login is a new session', async () => {
      const first = await client().login();
      const reply = await client().request(`${CLIENT}/authenticate?method=password`, { token: first, body: { username: ADMIN_USERNAME, password: ADMIN_PASSWORD } });
      expect(reply.status).toBe(200);
      expect(reply.body.data.token).not.toBe(first);
      // A garbage header does not get in the way either.
      const garbage = await client().request(`${CLIENT}/authenticate?method=password`, { token: 'garbage', body: { username: ADMIN_USERNAME, password: ADMIN_PASSWORD } });
      expect(garbage.status).toBe(200);
    });

    it('refuses a wrong password and an unknown user alike with 401 INVALID_AUTH', async () => {
      const replies = [];
      for (const body of [
        { username: ADMIN_USERNAME, password: 'wrong-password' },
        { username: 'nobody-here', password: 'wrong-password' },
      ]) {
        const reply = await client().request(`${MGMT}/authenticate?method=password`, { body, headers: { 'cf-connecting-ip': '192.0.2.10' } });
        expect(reply.status).toBe(401);
        expect(reply.headers.get('zt-session')).toBeNull();
        expect(reply.text).not.toContain('wrong-password');
        replies.push(reply.body.error);
      }
      // Nothing but the request id tells the two apart.
      expect({ ...replies[0], requestId: '' }).toEqual({ ...replies[1], requestId: '' });
      expect(replies[0].code).toBe('INVALID_AUTH');
      expect(replies[0].message).toBe('The authentication request failed');
      expect(replies[0]).not.toHaveProperty('cause');
    });

    it('validates username and password lengths with the field in the cause, never echoing the password', async () => {
      const short = await client().request(`${CLIENT}/authenticate?method=password`, { body: { username: 'abc', password: 'long-enough' } });
      expect(short.status).toBe(400);
      expect(short.body.error.code).toBe('COULD_NOT_VALIDATE');
      expect(short.body.error.cause).toMatchObject({ field: 'username', value: 'abc' });
      const long = await client().request(`${CLIENT}/authenticate?method=password`, { body: { username: 'u'.repeat(101), password: 'long-enough' } });
      expect(long.status).toBe(400);
      expect(long.body.error.cause.field).toBe('username');
      const shortPw = await client().request(`${CLIENT}/authenticate?method=password`, { body: { username: 'abcd', password: 'sec1' } });
      expect(shortPw.status).toBe(400);
      expect(shortPw.body.error.cause.field).toBe('password');
      expect(shortPw.text).not.toContain('sec1');
      const longPw = await client().request(`${CLIENT}/authenticate?method=password`, { body: { username: 'abcd', password: 'x'.repeat(101) } });
      expect(longPw.status).toBe(400);
      expect(longPw.body.error.cause.field).toBe('password');
      expect(longPw.text).not.toContain('x'.repeat(101));
      for (const body of [{}, { username: ADMIN_USERNAME }, { password: ADMIN_PASSWORD }]) {
        const missing = await client().request(`${CLIENT}/authenticate?method=password`, { body });
        expect(missing.status).toBe(400);
        expect(missing.body.error.code).toBe('COULD_NOT_VALIDATE');
        expect(missing.body.error.cause).toEqual({ code: 'UNHANDLED', message: 'username and password fields are required' });
        expect(missing.text).not.toContain(ADMIN_PASSWORD);
      }
      const noBody = await client().request(`${CLIENT}/authenticate?method=password`, { method: 'POST' });
      expect(noBody.status).toBe(400);
    });

    it('answers 401 INVALID_AUTH to certificate and external-JWT logins, which are not offered yet', async () => {
      for (const method of ['cert', 'ext-jwt']) {
        for (const api of [CLIENT, MGMT]) {
          const reply = await client().request(`${api}/authenticate?method=${method}`, { method: 'POST', headers: { authorization: 'Bearer abc.def.ghi' } });
          expect(reply.status, `${api} ${method}`).toBe(401);
          expect(reply.body.error.code).toBe('INVALID_AUTH');
        }
      }
    });

    it('resolves configTypes: all collapses the set, unknown entries are dropped', async () => {
      const all = await client().request(`${CLIENT}/authenticate?method=password`, { body: { username: ADMIN_USERNAME, password: ADMIN_PASSWORD, configTypes: ['intercept.v1', 'all', 'host.v1'] } });
      expect(all.body.data.configTypes).toEqual(['all']);
      const unknown = await client().request(`${CLIENT}/authenticate?method=password`, { body: { username: ADMIN_USERNAME, password: ADMIN_PASSWORD, configTypes: ['no-such-config-type'] } });
      expect(unknown.body.data.configTypes).toEqual([]);
      const session = await client().get(`${CLIENT}/current-api-session`, all.body.data.token);
      expect(session.body.data.configTypes).toEqual(['all']);
    });

    it('records the caller address from CF-Connecting-IP without a socket, never from X-Forwarded-For', async () => {
      const viaCf = await client().request(`${CLIENT}/authenticate?method=password`, {
        body: { username: ADMIN_USERNAME, password: ADMIN_PASSWORD },
        headers: { 'cf-connecting-ip': '203.0.113.7', 'x-forwarded-for': '198.51.100.1' },
      });
      expect(viaCf.body.data.ipAddress).toBe('203.0.113.7');
      // Forwarding headers are the client's to write unless a trusted proxy sets them (ZITI_TRUSTED_PROXIES).
      const viaXff = await client().request(`${CLIENT}/authenticate?method=password`, {
        body: { username: ADMIN_USERNAME, password: ADMIN_PASSWORD },
        headers: { 'x-forwarded-for': '198.51.100.1, 10.0.0.1', 'x-real-ip': '198.51.100.2' },
      });
      expect(viaXff.status).toBe(200);
      expect(viaXff.body.data.ipAddress).toBe('');
    });

    it('shows the current API session and identity, then logs out', async () => {
      const token = await client().login();
      const session = await client().get(`${CLIENT}/current-api-session`, token);
      expect(session.status).toBe(200);
      expect(conformance('client', 'getCurrentAPISession', 200, session.body)).toEqual([]);
      expect(session.body.data.token).toBe(token);
      expect(session.body.data.authQueries).toEqual([]);
      expect(session.headers.get('expiration-seconds')).toBe('1800');
      expect(Date.parse(session.headers.get('expires-at')!)).toBe(Date.parse(session.body.data.expiresAt));
      const me = await client().get(`${MGMT}/current-identity`, token);
      expect(me.status).toBe(200);
      expect(conformance('management', 'getCurrentIdentity', 200, me.body)).toEqual([]);
      expect(me.body.meta).toEqual({});
      const data = me.body.data;
      expect(data.id).toBe(session.body.data.identityId);
      expect(data.name).toBe('Default Admin');
      expect(data.isDefaultAdmin).toBe(true);
      expect(data.isAdmin).toBe(true);
      expect(data.authenticators.updb.username).toBe(ADMIN_USERNAME);
      expect(data.authenticators).not.toHaveProperty('cert');
      expect(data.enrollment).toEqual({});
      expect(data.hasApiSession).toBe(true);
      expect(data.isMfaEnabled).toBe(false);
      expect(data.disabled).toBe(false);
      expect(data.disabledAt).toBeNull();
      expect(data.typeId).toBe('Default');
      expect(data.type).toMatchObject({ id: 'Default', name: 'Default', entity: 'identity-types' });
      expect(data.authPolicyId).toBe('default');
      expect(data.authPolicy).toMatchObject({ id: 'default', name: 'Default', entity: 'auth-policies' });
      // Every field is omitempty (v1.6.2): only what a login sent appears, none of it as "".
      for (const info of [data.envInfo, data.sdkInfo]) expect(Object.values(info).every((v) => typeof v === 'string' && v !== '')).toBe(true);
      const out = await client().request(`${CLIENT}/current-api-session`, { method: 'DELETE', token });
      expect(out.status).toBe(200);
      expect(out.body).toEqual({ data: {}, meta: {} });
      for (const path of [`${CLIENT}/current-api-session`, `${MGMT}/current-identity`]) {
        const after = await client().get(path, token);
        expect(after.status).toBe(401);
        expect(after.body.error.code).toBe('UNAUTHORIZED');
      }
    });
  });
}

/** Passwords this suite sends: they must never come back in a reply or a log line. */
export const secrets = ['first-Passw0rd!', 'second-Passw0rd!', 'wrong-password', 'not-the-password', 'Much-Better-Passw0rd', 'new-password-1', 'guess-number-', 'another-pass'];
