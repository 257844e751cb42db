import { TOTP, URI } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { CLIENT, type TestClient } from '../helpers/client.js';
import type { CertPresenter } from './cert-login.suite.js';
import { adminApi } from './identities.suite.js';
import { bearer, claims, OidcClient } from './oidc-fixtures.js';
import { newCsr, newTestCa, pemCertificates, sha1Hex } from './pki-helpers.js';

/**
 * Certificate logins through the OIDC provider (reference oidc.md §5.1, §5.2, §6.1): the TLS client
 * certificate of the authorize and login requests, as the C SDK sends them (authorize by POST, the id in
 * the login's query, a JSON body of sdkInfo/envInfo), with and without TOTP. Node (the chain) and workerd
 * (the platform's verified fingerprint) run it with their own certificate presenter.
 */
export function oidcCertSuite(client: () => TestClient, presenter: () => CertPresenter) {
  const admin = adminApi(client);

  async function enrolled() {
    const id = await admin.createIdentity({ enrollment: { ott: true } });
    const token = (await admin.call(`/identities/${id}`)).body.data.enrollment.ott.token;
    const { csrPem } = await newCsr(id);
    const reply = await client().request(`${CLIENT}/enroll?method=ott&token=${token}`, { method: 'POST', raw: csrPem, headers: { 'content-type': 'text/plain' } });
    if (reply.status !== 200) throw new Error(`enroll failed: ${reply.text}`);
    const chain = pemCertificates(reply.body.data.cert);
    return { id, chain, device: presenter().client(chain), fingerprint: await sha1Hex(chain[0].rawData) };
  }

  /** The C SDK's login: `POST /oidc/login/cert?id=<id>` with a JSON body and no id in it. */
  const certLogin = (device: TestClient, id: string) =>
    device.request(`/oidc/login/cert?id=${encodeURIComponent(id)}`, { method: 'POST', body: { sdkInfo: { type: 'ziti-sdk-c', version: '1.6.6' }, envInfo: { os: 'linux', arch: 'x86_64' } }, headers: { accept: 'application/json' } });

  describe('OIDC certificate login', () => {
    it('sends a client with a certificate to the certificate login, and its token carries the certificate', async () => {
      const e = await enrolled();
      const oidc = new OidcClient(() => e.device);
      const flow = await oidc.authorize({ post: true });
      expect(flow.authorize.status).toBe(302);
      expect(flow.authorize.headers.get('location')).toContain('/oidc/login/cert?authRequestID=');
      const page = await e.device.get(`/oidc/login/cert?authRequestID=${flow.id}`);
      expect(page.headers.get('auth-request-id')).toBe(flow.id);

      const login = await certLogin(e.device, flow.id);
      expect(login.status, login.text).toBe(302);
      // The C SDK GETs the path of the Location, query included.
      const location = new URL(login.headers.get('location')!);
      const cb = await e.device.get(location.pathname + location.search);
      expect(cb.status).toBe(302);
      const code = new URL(cb.headers.get('location')!).searchParams.get('code')!;
      const t = await oidc.redeem(flow, code);
      expect(t.status, t.text).toBe(200);
      const access = claims(t.body.access_token);
      const authenticators = (await admin.call(`/identities/${e.id}/authenticators`)).body.data;
      expect(access).toMatchObject({ sub: e.id, amr: ['cert'], z_cfs: [e.fingerprint], z_ice: true, z_authid: authenticators[0].id });
      expect(access.z_sdk).toMatchObject({ type: 'ziti-sdk-c' });
      // The token alone is the credential from here on, with or without the certificate.
      for (const c of [client(), e.device]) expect((await bearer(c, `${CLIENT}/current-identity`, t.body.access_token)).body.data.id).toBe(e.id);
      const session = await bearer(client(), `${CLIENT}/current-api-session`, t.body.access_token);
      expect(session.body.data).toMatchObject({ isCertExtendable: true, authenticatorId: authenticators[0].id });
    });

    it('a password login over a connection with a certificate records its fingerprint too', async () => {
      const e = await enrolled();
      const user = await admin.createUser();
      const oidc = new OidcClient(() => e.device);
      const flow = await oidc.authorize({ method: 'password' });
      expect(flow.authorize.headers.get('location')).toContain('/oidc/login/username?');
      expect((await oidc.login(flow, 'username', { username: user.username, password: user.password })).status).toBe(302);
      const t = await oidc.redeem(flow, (await oidc.callback(flow)).code);
      expect(claims(t.body.access_token)).toMatchObject({ sub: user.identityId, amr: ['password'], z_cfs: [e.fingerprint] });
    });

    it('refuses no certificate, an unknown certificate and a disabled identity with 401', async () => {
      const oidc = new OidcClient(client);
      const flow = await oidc.authorize({ method: 'cert' });
      const none = await certLogin(client(), flow.id);
      expect(none.status).toBe(401);
      expect(none.body.error.code).toBe('INVALID_AUTH');
      const stranger = await newTestCa('oidc-stranger');
      const leaf = await stranger.issue('CN=nobody');
      expect((await certLogin(presenter().client([leaf.cert, stranger.cert]), flow.id)).status).toBe(401);
      const e = await enrolled();
      expect((await admin.call(`/identities/${e.id}/disable`, { body: { durationMinutes: 0 } })).status).toBe(200);
      expect((await certLogin(e.device, flow.id)).status).toBe(401);
      expect((await admin.call(`/identities/${e.id}/enable`, { method: 'POST' })).status).toBe(200);
      expect((await certLogin(e.device, flow.id)).status).toBe(302);
    });

    it('with a TOTP enrolment the certificate login is followed by the TOTP step', async () => {
      const e = await enrolled();
      const zt = (await e.device.request(`${CLIENT}/authenticate?method=cert`, { method: 'POST', body: {} })).body.data.token as string;
      await e.device.request(`${CLIENT}/current-identity/mfa`, { method: 'POST', token: zt });
      const totp = URI.parse((await e.device.get(`${CLIENT}/current-identity/mfa`, zt)).body.data.provisioningUrl) as TOTP;
      const at = Date.now() - 30_000;
      expect((await e.device.request(`${CLIENT}/current-identity/mfa/verify`, { token: zt, body: { code: totp.generate({ timestamp: at }) } })).status).toBe(200);

      const oidc = new OidcClient(() => e.device);
      const flow = await oidc.authorize();
      const login = await certLogin(e.device, flow.id);
      expect(login.status).toBe(200);
      expect(login.headers.get('totp-required')).toBe('true');
      expect(login.body.authQueries[0]).toMatchObject({ typeId: 'TOTP' });
      // The C SDK posts the code as a form and expects a redirect.
      const step = await e.device.request('/oidc/login/totp', { method: 'POST', raw: new URLSearchParams({ id: flow.id, code: totp.generate({ timestamp: at + 30_000 }) }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(step.status, step.text).toBe(302);
      const t = await oidc.redeem(flow, (await oidc.callback(flow)).code);
      expect(claims(t.body.access_token).amr).toEqual(['cert', 'totp']);
    });
  });
}
