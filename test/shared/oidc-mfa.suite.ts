import { TOTP, URI } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { CLIENT } from '../helpers/client.js';
import { TypedApi, type ClientOperations } from '../helpers/typed-api.js';
import { storeFixtures, unique } from './auth-fixtures.js';
import { bearer, claims, OidcClient } from './oidc-fixtures.js';
import type { Suite } from './suite.js';

export const secrets = ['oidc-mfa-Passw0rd!'];
const PASSWORD = 'oidc-mfa-Passw0rd!';
const TOTP_QUERY = { typeId: 'TOTP', provider: 'ziti', format: 'numeric', httpMethod: 'POST', httpUrl: './oidc/login/totp', minLength: 6, maxLength: 8 };

/**
 * The TOTP step of the OIDC login (reference oidc.md §5.2, §5.3): `totp-required` and `authQueries` after
 * the primary login, `/oidc/login/totp` with a TOTP or recovery code (single use, as `/authenticate/mfa`),
 * and what the token says afterwards. Node and workerd.
 */
const oidcMfaSuite: Suite = ({ client, db }) => {
  const oidc = new OidcClient(client);

  /** A user with a verified TOTP enrolment (made through the REST API) and a source of fresh codes. */
  async function enrolled(options: { authPolicyId?: string } = {}) {
    const username = unique('oidcm');
    const ids = await storeFixtures(db()).createUser({ username, password: PASSWORD, ...options });
    const zt = await client().login(username, PASSWORD, CLIENT);
    const api = new TypedApi<ClientOperations>(client, 'client', () => zt);
    await api.ok('enrollMfa');
    const detail = (await api.ok('detailMfa')).data;
    const totp = URI.parse(detail.provisioningUrl!) as TOTP;
    const start = Date.now() - 30_000;
    let step = 0;
    const code = () => totp.generate({ timestamp: start + 30_000 * step++ });
    expect((await api.call('verifyMfa', { body: { code: code() } })).status).toBe(200);
    return { ...ids, username, code, recoveryCodes: detail.recoveryCodes! };
  }

  describe('TOTP after the primary login', () => {
    it('answers 200 with totp-required and the TOTP auth query, then the code finishes the flow', async () => {
      const u = await enrolled();
      const flow = await oidc.authorize();
      const login = await oidc.login(flow, 'username', { username: u.username, password: PASSWORD });
      expect(login.status, login.text).toBe(200);
      expect(login.headers.get('totp-required')).toBe('true');
      expect(login.body).toEqual({ authQueries: [TOTP_QUERY] });
      const queries = await client().get(`/oidc/login/auth-queries?id=${flow.id}`);
      expect(queries.body.authQueries).toEqual([TOTP_QUERY]);
      expect(queries.headers.get('totp-required')).toBe('true');
      // Not done yet: the callback sends the client an error.
      expect((await oidc.callback(flow)).url!.searchParams.get('error')).toBe('interaction_required');

      const wrong = await oidc.totp(flow, '000000');
      expect(wrong.status).toBe(400);
      expect(wrong.body.error.code).toBe('MFA_INVALID_TOKEN');
      const code = u.code();
      const right = await oidc.totp(flow, code);
      expect(right.status, right.text).toBe(302);
      expect(right.headers.get('location')).toBe(`https://localhost:1280/oidc/authorize/callback?id=${flow.id}`);
      expect((await client().get(`/oidc/login/auth-queries?id=${flow.id}`)).body.authQueries).toEqual([]);
      const { code: authCode } = await oidc.callback(flow);
      const t = await oidc.redeem(flow, authCode);
      expect(t.status).toBe(200);
      expect(claims(t.body.access_token).amr).toEqual(['password', 'totp']);
      expect(claims(t.body.id_token).amr).toEqual(['password', 'totp']);
      const session = await bearer(client(), `${CLIENT}/current-api-session`, t.body.access_token);
      expect(session.body.data).toMatchObject({ isMfaRequired: true, isMfaComplete: true, authQueries: [] });

      // The same code does not pass a second login (no replay, ADR 0007).
      const again = await oidc.authorize();
      await oidc.login(again, 'username', { username: u.username, password: PASSWORD });
      expect((await oidc.totp(again, code)).status).toBe(400);
      expect((await oidc.totp(again, u.code())).status).toBe(302);
    });

    it('takes a recovery code once, and the form body of a browser with the TOTP page', async () => {
      const u = await enrolled();
      const flow = await oidc.authorize();
      const page = await oidc.login(flow, 'username', { username: u.username, password: PASSWORD }, { form: true, headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(page.headers.get('totp-required')).toBe('true');
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.text).toContain('/oidc/login/totp');
      const recovery = u.recoveryCodes[0];
      const byForm = await client().request('/oidc/login/totp', { method: 'POST', raw: new URLSearchParams({ id: flow.id, code: recovery }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(byForm.status, byForm.text).toBe(302);
      const other = await oidc.authorize();
      await oidc.login(other, 'username', { username: u.username, password: PASSWORD });
      expect((await oidc.totp(other, recovery)).status).toBe(400);
    });

    it('a policy requiring TOTP without an enrolment asks for it; the code step then says MFA_NOT_ENROLLED', async () => {
      const policy = await storeFixtures(db()).createAuthPolicy({ requireTotp: true });
      const username = unique('oidcm');
      await storeFixtures(db()).createUser({ username, password: PASSWORD, authPolicyId: policy });
      const flow = await oidc.authorize();
      const login = await oidc.login(flow, 'username', { username, password: PASSWORD });
      expect(login.status).toBe(200);
      expect(login.body.authQueries).toEqual([TOTP_QUERY]);
      const step = await oidc.totp(flow, '123456');
      expect(step.status).toBe(409);
      expect(step.body.error.code).toBe('MFA_NOT_ENROLLED');
    });

    it('refuses a code before the primary login, a missing code and an overlong one', async () => {
      const u = await enrolled();
      const flow = await oidc.authorize();
      expect((await oidc.totp(flow, u.code())).status).toBe(401);
      await oidc.login(flow, 'username', { username: u.username, password: PASSWORD });
      expect((await client().request('/oidc/login/totp', { method: 'POST', body: { id: flow.id } })).status).toBe(400);
      expect((await oidc.totp(flow, '1'.repeat(20))).status).toBe(400);
      expect((await oidc.totp(flow, u.code())).status).toBe(302);
    });
  });
};

export default oidcMfaSuite;
