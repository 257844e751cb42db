import { describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, ADMIN_USERNAME, CLIENT, MGMT, type TestClient } from '../helpers/client.js';

/** Password login, the current API session and identity, logout: on Node and on workerd. */
export function authLoginSuite(client: () => TestClient) {
  describe('password authentication', () => {
    it('logs the admin in on both APIs and returns the session in body and headers', async () => {
      for (const api of [CLIENT, MGMT]) {
        const reply = await client().request(`${api}/authenticate?method=password`, {
          body: { username: ADMIN_USERNAME, password: ADMIN_PASSWORD, envInfo: { os: 'linux', arch: 'amd64' }, sdkInfo: { type: 'ziti-sdk-golang', version: '1.1.1' } },
        });
        expect(reply.status).toBe(200);
        const data = reply.body.data;
        expect(data.token).toMatch(/^[0-9a-f-]{36}$/);
        expect(reply.headers.get('zt-session')).toBe(data.token);
        expect(reply.headers.get('expiration-seconds')).toBe('1800');
        expect(data.id).toMatch(/^c[0-9a-z]{24}$/);
        expect(data.identity.entity).toBe('identities');
        expect(data.identity.name).toBe('Default Admin');
        expect(data.authQueries).toEqual([]);
        expect(data.isMfaRequired).toBe(false);
        expect(data.isMfaComplete).toBe(false);
        expect(data.isCertExtendable).toBe(false);
        expect(data.expirationSeconds).toBe(1800);
        expect(Date.parse(data.expiresAt) - Date.parse(data.lastActivityAt)).toBe(1800 * 1000);
        expect(data.configTypes).toEqual([]);
        expect(data._links.self.href).toBe(`./api-sessions/${data.id}`);
        expect(reply.text).not.toContain(ADMIN_PASSWORD);
      }
    });

    it('refuses a wrong password and an unknown user alike with 401 INVALID_AUTH', async () => {
      for (const body of [
        { username: ADMIN_USERNAME, password: 'wrong-password' },
        { username: 'nobody-here', password: 'wrong-password' },
      ]) {
        const reply = await client().request(`${MGMT}/authenticate?method=password`, { body });
        expect(reply.status).toBe(401);
        expect(reply.body.error.code).toBe('INVALID_AUTH');
        expect(reply.headers.get('zt-session')).toBeNull();
        expect(reply.text).not.toContain('wrong-password');
      }
    });

    it('validates username and password lengths with the field in the cause, never echoing the password', async () => {
      const short = await client().request(`${CLIENT}/authenticate?method=password`, { body: { username: 'abc', password: 'long-enough' } });
      expect(short.status).toBe(400);
      expect(short.body.error.code).toBe('COULD_NOT_VALIDATE');
      expect(short.body.error.cause.field).toBe('username');
      const pw = await client().request(`${CLIENT}/authenticate?method=password`, { body: { username: 'abcd', password: 'x'.repeat(101) } });
      expect(pw.status).toBe(400);
      expect(pw.body.error.cause.field).toBe('password');
      expect(pw.text).not.toContain('x'.repeat(101));
      const missing = await client().request(`${CLIENT}/authenticate?method=password`, { body: {} });
      expect(missing.status).toBe(400);
      expect(missing.body.error.code).toBe('COULD_NOT_VALIDATE');
    });

    it('shows the current API session and identity, then logs out', async () => {
      const token = await client().login();
      const session = await client().get(`${CLIENT}/current-api-session`, token);
      expect(session.status).toBe(200);
      expect(session.body.data.token).toBe(token);
      expect(session.headers.get('expiration-seconds')).toBe('1800');
      const me = await client().get(`${MGMT}/current-identity`, token);
      expect(me.status).toBe(200);
      expect(me.body.meta).toEqual({});
      expect(me.body.data.isDefaultAdmin).toBe(true);
      expect(me.body.data.isAdmin).toBe(true);
      expect(me.body.data.authenticators.updb.username).toBe(ADMIN_USERNAME);
      expect(me.body.data.hasApiSession).toBe(true);
      expect(me.body.data.envInfo.os).toBe('linux');
      expect(me.body.data.type).toMatchObject({ id: 'Default', entity: 'identity-types' });
      expect(me.body.data.authPolicy).toMatchObject({ id: 'default', name: 'Default' });
      const out = await client().request(`${CLIENT}/current-api-session`, { method: 'DELETE', token });
      expect(out.status).toBe(200);
      expect(out.body).toEqual({ data: {}, meta: {} });
      const after = await client().get(`${CLIENT}/current-api-session`, token);
      expect(after.status).toBe(401);
      expect(after.body.error.code).toBe('UNAUTHORIZED');
    });
  });
}
