import { TOTP, URI } from 'otpauth';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENT } from '../helpers/client.js';
import { TypedApi, type ClientOperations, type ManagementOperations } from '../helpers/typed-api.js';
import { storeFixtures, unique } from './auth-fixtures.js';
import { jwksBody, providerKey, signToken, type ProviderKey } from './ext-jwt-fixtures.js';
import { bearer, claims, OidcClient } from './oidc-fixtures.js';
import type { Suite } from './suite.js';

export const secrets = ['oidc-ejwt-Passw0rd!'];
const PASSWORD = 'oidc-ejwt-Passw0rd!';
const AUDIENCE = 'ziti-oidc-tests';

/**
 * External-JWT logins through the OIDC provider (reference oidc.md §5.2): primary (`/oidc/login/ext-jwt`
 * with the identity provider's token as bearer), with and without TOTP, and as the secondary factor an
 * auth policy requires (which controller v1.6.2 can never complete, §5.3). Node and workerd.
 */
const oidcExtJwtSuite: Suite = ({ client, db, jwks }) => {
  const oidc = new OidcClient(client);
  let adminToken = '';
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => adminToken);
  let key: ProviderKey;
  let issuer = '';
  let signerId = '';

  const newIdentity = async (body: Record<string, unknown> = {}) => (await admin.ok('createIdentity', { body: { name: unique('ejwt'), type: 'User', isAdmin: false, ...body } as never })).data!.id!;
  const idpToken = (sub: string) => signToken(key, { iss: issuer, aud: AUDIENCE, sub });

  beforeAll(async () => {
    adminToken = await client().login();
    key = await providerKey('ES256');
    const path = `/oidc-jwks-${crypto.randomUUID()}`;
    jwks().serve(path, { body: jwksBody(key) });
    issuer = unique('https://idp-oidc');
    signerId = (await admin.ok('createExternalJwtSigner', { body: { name: unique('signer'), enabled: true, issuer, audience: AUDIENCE, jwksEndpoint: jwks().url(path) } as never })).data!.id!;
  });

  it('logs an identity in with its provider token, and the session names the signer', async () => {
    const identityId = await newIdentity();
    const flow = await oidc.authorize({ method: 'ext-jwt' });
    expect(flow.authorize.headers.get('location')).toContain('/oidc/login/ext-jwt?authRequestID=');
    const page = await client().get(`/oidc/login/ext-jwt?authRequestID=${flow.id}`);
    expect(page.text).toBe('please POST to this URL');
    expect(page.headers.get('auth-request-id')).toBe(flow.id);
    const login = await oidc.login(flow, 'ext-jwt', {}, { headers: { authorization: `Bearer ${await idpToken(identityId)}` } });
    expect(login.status, login.text).toBe(302);
    const { code } = await oidc.callback(flow);
    const t = await oidc.redeem(flow, code);
    expect(t.status).toBe(200);
    const access = claims(t.body.access_token);
    expect(access).toMatchObject({ sub: identityId, amr: ['ext-jwt'], z_authid: `extJwtId:${signerId}` });
    expect((await bearer(client(), `${CLIENT}/current-identity`, t.body.access_token)).body.data.id).toBe(identityId);
  });

  it('refuses no token, a token for nobody, and a token of another provider, with 401', async () => {
    const identityId = await newIdentity();
    const stranger = await providerKey('ES256');
    const flow = await oidc.authorize({ method: 'ext-jwt' });
    for (const auth of [undefined, `Bearer ${await idpToken('nobody-here')}`, `Bearer ${await signToken(stranger, { iss: issuer, aud: AUDIENCE, sub: identityId })}`]) {
      const r = await oidc.login(flow, 'ext-jwt', {}, { headers: auth ? { authorization: auth } : {} });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('INVALID_AUTH');
    }
    expect((await oidc.login(flow, 'ext-jwt', {}, { headers: { authorization: `Bearer ${await idpToken(identityId)}` } })).status).toBe(302);
  });

  it('with a TOTP enrolment, the provider token is followed by the TOTP step', async () => {
    const identityId = await newIdentity();
    // Enrol through the REST API with an ext-jwt session.
    const rest = await client().request(`${CLIENT}/authenticate?method=ext-jwt`, { method: 'POST', headers: { authorization: `Bearer ${await idpToken(identityId)}` } });
    const zt = rest.body.data.token as string;
    const api = new TypedApi<ClientOperations>(client, 'client', () => zt);
    await api.ok('enrollMfa');
    const totp = URI.parse((await api.ok('detailMfa')).data.provisioningUrl!) as TOTP;
    const at = Date.now() - 30_000;
    expect((await api.call('verifyMfa', { body: { code: totp.generate({ timestamp: at }) } })).status).toBe(200);

    const flow = await oidc.authorize({ method: 'ext-jwt' });
    const login = await oidc.login(flow, 'ext-jwt', {}, { headers: { authorization: `Bearer ${await idpToken(identityId)}` } });
    expect(login.status).toBe(200);
    expect(login.headers.get('totp-required')).toBe('true');
    expect((await oidc.totp(flow, totp.generate({ timestamp: at + 30_000 }))).status).toBe(302);
    const { code } = await oidc.callback(flow);
    const t = await oidc.redeem(flow, code);
    expect(claims(t.body.access_token).amr).toEqual(['ext-jwt', 'totp']);
  });

  it('completes the secondary external JWT an auth policy requires, on the login or in a second step', async () => {
    const policy = await storeFixtures(db()).createAuthPolicy({ requireExtJwtSigner: signerId });
    const username = unique('oidce');
    const { identityId } = await storeFixtures(db()).createUser({ username, password: PASSWORD, authPolicyId: policy });

    // Without the provider token the login is partial: the EXT-JWT auth query names the signer.
    const flow = await oidc.authorize();
    const partial = await oidc.login(flow, 'username', { username, password: PASSWORD });
    expect(partial.status).toBe(200);
    expect(partial.headers.get('totp-required')).toBeNull();
    expect(partial.body.authQueries).toEqual([{ typeId: 'EXT-JWT', provider: 'url', id: signerId, scopes: null }]);
    expect((await oidc.callback(flow)).url!.searchParams.get('error')).toBe('interaction_required');
    // A token naming someone else does not complete it.
    const otherId = await newIdentity();
    expect((await oidc.login(flow, 'ext-jwt', {}, { headers: { authorization: `Bearer ${await idpToken(otherId)}` } })).status).toBe(401);
    const second = await oidc.login(flow, 'ext-jwt', {}, { headers: { authorization: `Bearer ${await idpToken(identityId)}` } });
    expect(second.status, second.text).toBe(302);
    const { code } = await oidc.callback(flow);
    const t = await oidc.redeem(flow, code);
    expect(claims(t.body.access_token).amr).toEqual(['password', `ejs:${signerId}`]);

    // With the provider token on the password login itself, it is done at once.
    const once = await oidc.authorize();
    const direct = await oidc.login(once, 'username', { username, password: PASSWORD }, { headers: { authorization: `Bearer ${await idpToken(identityId)}` } });
    expect(direct.status, direct.text).toBe(302);
  });
};

export default oidcExtJwtSuite;
