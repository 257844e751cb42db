import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, ADMIN_USERNAME, CLIENT, MGMT } from '../helpers/client.js';
import { expectConforms } from '../helpers/conform.js';
import { storeFixtures, unique } from './auth-fixtures.js';
import { bearer, claims, form, FORM, OidcClient, REDIRECT } from './oidc-fixtures.js';
import type { Suite } from './suite.js';

/** Passwords this suite uses: the Node collector checks that no reply or log line carries them. */
export const secrets = ['oidc-Passw0rd!'];
const PASSWORD = 'oidc-Passw0rd!';
const ISSUER = 'https://localhost:1280/oidc';

/**
 * The OIDC provider's authorization-code flow with PKCE for password logins (reference oidc.md §5), the
 * tokens it issues (§6) and their use on both REST APIs (§7): Node and workerd.
 */
const oidcFlowSuite: Suite = ({ client, db }) => {
  const oidc = new OidcClient(client);
  const fixtures = () => storeFixtures(db());

  async function newUser(options: { isAdmin?: boolean } = {}) {
    const username = unique('oidc');
    const ids = await fixtures().createUser({ username, password: PASSWORD, ...options });
    return { ...ids, username };
  }

  describe('discovery and keys', () => {
    it('serves the discovery document under /oidc with the issuer of the host dialled, and advertises only what works', async () => {
      for (const path of ['/oidc/.well-known/openid-configuration', '/oidc//.well-known/openid-configuration']) {
        const reply = await client().get(path);
        expect(reply.status).toBe(200);
        expect(reply.body).toMatchObject({
          issuer: ISSUER,
          authorization_endpoint: `${ISSUER}/authorize`,
          token_endpoint: `${ISSUER}/oauth/token`,
          jwks_uri: `${ISSUER}/keys`,
          end_session_endpoint: `${ISSUER}/end_session`,
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
          id_token_signing_alg_values_supported: ['RS256'],
        });
        expect(reply.body.grant_types_supported).toEqual(['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:token-exchange']);
      }
      // The root /.well-known is not the provider's (it is an unknown client path).
      expect((await client().get('/.well-known/openid-configuration')).status).toBe(404);
    });

    it('publishes the signing key with the server certificate fingerprint as kid, and /version announces OIDC', async () => {
      const keys = await client().get('/oidc/keys');
      expect(keys.status).toBe(200);
      expect(keys.body.keys.length).toBeGreaterThanOrEqual(1);
      const jwk = keys.body.keys[0];
      expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(jwk.kid).toMatch(/^[0-9a-f]{40}$/);
      expect(jwk).not.toHaveProperty('d');
      // ID tokens are RS256 (relying parties of the Go OIDC library accept no other), from a key of their own.
      const rsa = keys.body.keys.find((k: { kty: string }) => k.kty === 'RSA');
      expect(rsa).toMatchObject({ alg: 'RS256', use: 'sig', e: 'AQAB' });
      expect(rsa.kid).toMatch(/^[0-9a-f]{40}$/);
      expect(rsa).not.toHaveProperty('d');
      expect(rsa).not.toHaveProperty('p');
      const version = await client().get(`${CLIENT}/version`);
      expect(version.body.data.capabilities).toContain('OIDC_AUTH');
      expect(version.body.data.apiVersions['edge-oidc'].v1).toEqual({ path: '/oidc', apiBaseUrls: ['https://localhost:1280/oidc'] });
    });
  });

  describe('authorization code flow with PKCE', () => {
    it('logs a password identity in (JSON body), and its access token works on both APIs without zt-session', async () => {
      const user = await newUser();
      const flow = await oidc.authorize({ nonce: 'n-123' });
      expect(flow.authorize.status).toBe(302);
      expect(flow.authorize.headers.get('location')).toMatch(/^https:\/\/localhost:1280\/oidc\/login\/username\?authRequestID=[0-9a-f-]{36}$/);
      // The page the Go SDK lands on carries the id in a header.
      const page = await client().get(`/oidc/login/username?authRequestID=${flow.id}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('auth-request-id')).toBe(flow.id);
      expect(page.headers.get('content-type')).toContain('text/html');

      const login = await oidc.login(flow, 'username', { username: user.username, password: PASSWORD, sdkInfo: { type: 'test-sdk', version: '1.2.3' }, envInfo: { os: 'linux' } });
      expect(login.status, login.text).toBe(302);
      expect(login.headers.get('location')).toBe(`${ISSUER}/authorize/callback?id=${flow.id}`);
      const { reply, code, url } = await oidc.callback(flow);
      expect(reply.status).toBe(302);
      expect(`${url!.origin}${url!.pathname}`).toBe(REDIRECT);
      expect(url!.searchParams.get('state')).toBe(flow.state);
      // The code is the last parameter, so a client reading from `code=` to the end gets it alone.
      expect(reply.headers.get('location')!.endsWith(`code=${code}`)).toBe(true);

      const tokens = await oidc.redeem(flow, code);
      expect(tokens.status, tokens.text).toBe(200);
      expect(tokens.headers.get('cache-control')).toBe('no-store');
      const t = tokens.body;
      expect(t).toMatchObject({ token_type: 'Bearer', expires_in: 1800, scope: 'offline_access openid' });
      expect(typeof t.refresh_token).toBe('string');

      // Signed with a published key; the claims of §6.
      const jwks = createLocalJWKSet((await client().get('/oidc/keys')).body);
      const access = (await jwtVerify(t.access_token, jwks, { issuer: ISSUER, audience: 'openziti', algorithms: ['ES256'] })).payload as Record<string, any>;
      expect(decodeProtectedHeader(t.access_token)).toMatchObject({ alg: 'ES256', typ: 'JWT' });
      expect(access).toMatchObject({ sub: user.identityId, aud: ['openziti'], z_t: 'a', z_aid: 'openziti', z_authid: user.authenticatorId, scopes: ['offline_access', 'openid'], amr: ['password'], z_cfs: null, z_ice: false });
      expect(access.z_asid).toMatch(/^[0-9a-f-]{36}$/);
      expect(access).not.toHaveProperty('z_ia');
      expect(access.exp - access.iat).toBe(1800);
      // Only the fields sent, as the controller's model omits empty ones.
      expect([access.z_sdk, access.z_env]).toEqual([{ type: 'test-sdk', version: '1.2.3' }, { os: 'linux' }]);
      const id = (await jwtVerify(t.id_token, jwks, { issuer: ISSUER, audience: 'openziti', algorithms: ['RS256'] })).payload as Record<string, any>;
      expect(decodeProtectedHeader(t.id_token)).toMatchObject({ alg: 'RS256', typ: 'JWT' });
      expect(id).toMatchObject({ sub: user.identityId, nonce: 'n-123', azp: 'openziti', z_ia: false, amr: ['password'] });
      expect(typeof id.name).toBe('string');
      const refresh = claims(t.refresh_token);
      expect(refresh).toMatchObject({ sub: user.identityId, z_t: 'r', client_id: 'openziti', jti: access.jti, z_asid: access.z_asid, aud: ['openziti'] });

      for (const base of [CLIENT, MGMT]) {
        const me = await bearer(client(), `${base}/current-identity`, t.access_token);
        expect(me.status, me.text).toBe(200);
        expect(me.body.data.id).toBe(user.identityId);
      }
      const session = expectConforms(await bearer(client(), `${CLIENT}/current-api-session`, t.access_token), 'getCurrentAPISession', 'client');
      expect(session.body.data).toMatchObject({ id: access.z_asid, identityId: user.identityId, token: t.access_token, authQueries: [], isMfaRequired: false, isMfaComplete: false, authenticatorId: user.authenticatorId });
      expect(session.body.data.expiresAt).toBe(new Date(access.exp * 1000).toISOString());
      // §7.2: the token's remaining lifetime.
      const seconds = Number(session.headers.get('expiration-seconds'));
      expect(seconds).toBeGreaterThan(1700);
      expect(seconds).toBeLessThanOrEqual(1800);
      expect(session.headers.get('expires-at')).toBe(new Date(access.exp * 1000).toISOString());
    });

    it('takes form bodies (the Go SDK: native client, sdkAppID, POSTed authorize) and maps config type names to ids', async () => {
      const user = await newUser();
      const flow = await oidc.authorize({ clientId: 'native', post: true, configTypes: ['intercept.v1', 'no-such-type'] });
      expect(flow.authorize.status).toBe(302);
      const login = await oidc.login(flow, 'password', { username: user.username, password: PASSWORD, sdkAppID: 'my-app', sdkType: 'ziti-sdk-golang', envArch: 'amd64' }, { form: true });
      expect(login.status, login.text).toBe(302);
      const { code } = await oidc.callback(flow);
      const tokens = await oidc.redeem(flow, code);
      expect(tokens.status, tokens.text).toBe(200);
      const access = claims(tokens.body.access_token);
      expect(access.aud).toEqual(['native']);
      expect(access.z_ct).toEqual(['g7cIWbcGg']);
      expect(access.z_sdk).toEqual({ appId: 'my-app', type: 'ziti-sdk-golang' });
      expect(access.z_env).toEqual({ arch: 'amd64' });
      const session = await bearer(client(), `${CLIENT}/current-api-session`, tokens.body.access_token);
      expect(session.body.data.configTypes).toEqual(['g7cIWbcGg']);
    });

    it('an admin token has z_ia and may use admin operations; a non-admin token may not', async () => {
      const admin = await oidc.passwordTokens(ADMIN_USERNAME, ADMIN_PASSWORD);
      expect(claims(admin.access_token).z_ia).toBe(true);
      expect((await bearer(client(), `${MGMT}/identities?limit=1`, admin.access_token)).status).toBe(200);
      const user = await newUser();
      const plain = await oidc.passwordTokens(user.username, PASSWORD);
      const refused = await bearer(client(), `${MGMT}/identities?limit=1`, plain.access_token);
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('UNAUTHORIZED');
    });

    it('zt-session wins over a bearer token; without either, or with a garbage bearer, 401 with the usual cause', async () => {
      const user = await newUser();
      const t = await oidc.passwordTokens(user.username, PASSWORD);
      const other = await newUser();
      const zt = await client().login(other.username, PASSWORD, CLIENT);
      const both = await client().request(`${CLIENT}/current-identity`, { token: zt, headers: { authorization: `Bearer ${t.access_token}` } });
      expect(both.body.data.id).toBe(other.identityId);
      const bad = await client().request(`${CLIENT}/current-identity`, { token: 'not-a-token', headers: { authorization: `Bearer ${t.access_token}` } });
      expect(bad.status).toBe(401);
      for (const auth of [undefined, 'Bearer garbage', `Bearer ${t.access_token}x`, `Basic ${btoa('a:b')}`]) {
        const r = await client().request(`${CLIENT}/current-identity`, { headers: auth ? { authorization: auth } : {} });
        expect(r.status).toBe(401);
        expect(r.body.error).toMatchObject({ code: 'UNAUTHORIZED', cause: { message: 'unauthenticated for invalid credentials' } });
      }
      // The first of two bearer values that verifies is used (the Go SDK may send two).
      const two = await client().request(`${CLIENT}/current-identity`, { headers: { authorization: `Bearer garbage, Bearer ${t.access_token}` } });
      expect(two.body.data.id).toBe(user.identityId);
    });

    it('a wrong password is 401 in the envelope (or the login page with 401 for a browser), and the request stays usable', async () => {
      const user = await newUser();
      const flow = await oidc.authorize();
      const wrong = await oidc.login(flow, 'username', { username: user.username, password: 'wrong-password' });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('INVALID_AUTH');
      const browser = await oidc.login(flow, 'username', { username: user.username, password: 'wrong-password' }, { form: true, headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect(browser.status).toBe(401);
      expect(browser.headers.get('content-type')).toContain('text/html');
      expect(browser.text).toContain('not valid');
      expect(browser.text).not.toContain('wrong-password');
      expect((await oidc.login(flow, 'username', { username: user.username, password: PASSWORD })).status).toBe(302);
      // A second primary login on the same request is refused.
      expect((await oidc.login(flow, 'username', { username: user.username, password: PASSWORD })).status).toBe(401);
    });

    it('refuses bad login input with 4xx and changes nothing', async () => {
      const user = await newUser();
      const flow = await oidc.authorize();
      const c = client();
      expect((await c.request('/oidc/login/username', { method: 'POST', raw: 'x', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
      const badJson = await c.request('/oidc/login/username', { method: 'POST', raw: '{"id":', headers: { 'content-type': 'application/json' } });
      expect(badJson.status).toBe(400);
      expect(badJson.body.error.code).toBe('COULD_NOT_PARSE_BODY');
      const longName = await oidc.login(flow, 'username', { username: 'x'.repeat(500), password: PASSWORD });
      expect(longName.status).toBe(400);
      expect((await oidc.login({ ...flow, id: crypto.randomUUID() }, 'username', { username: user.username, password: PASSWORD })).status).toBe(401);
      expect((await oidc.login({ ...flow, id: 'x'.repeat(5000) }, 'username', { username: user.username, password: PASSWORD })).status).toBe(401);
      expect((await c.request('/oidc/login/totp', { method: 'POST', body: { id: flow.id, code: '123456' } })).status).toBe(401);
      expect((await c.get('/oidc/authorize/callback?id=nope')).status).toBe(400);
      // Hostile ids are never echoed into a header or the page.
      const hostile = await c.get('/oidc/login/username?authRequestID=%0d%0aset-cookie:%20x%3D1%3Cscript%3E');
      expect(hostile.status).toBe(200);
      expect(hostile.headers.get('auth-request-id')).toBe('');
      expect(hostile.headers.get('set-cookie')).toBeNull();
      expect(hostile.text).not.toContain('<script>');
      expect((await c.request('/oidc/oauth/token', { method: 'POST', raw: 'grant_type=authorization_code&client_id=openziti&code_verifier=x&code=%FF%FE', headers: { 'content-type': FORM } })).status).toBe(400);
      expect((await c.request('/oidc/authorize?client_id=openziti&redirect_uri=%E0%A4%A', {})).status).toBe(400);
      // Not finished: the error goes to the client's redirect URI.
      const early = await oidc.callback(flow);
      expect(early.reply.status).toBe(302);
      expect(early.url!.searchParams.get('error')).toBe('interaction_required');
      expect(early.url!.searchParams.get('state')).toBe(flow.state);
      // The request is still usable after all that.
      expect((await oidc.login(flow, 'username', { username: user.username, password: PASSWORD })).status).toBe(302);
    });
  });

  describe('authorize validation (§5.1)', () => {
    it('refuses unknown clients and unregistered redirect URIs with a plain 400, other problems at the redirect URI', async () => {
      const c = client();
      const { challenge } = await (await import('./oidc-fixtures.js')).pkce();
      const q = (over: Record<string, string | undefined>) =>
        `/oidc/authorize?${form({ client_id: 'openziti', response_type: 'code', scope: 'openid', redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's1', ...over })}`;
      for (const over of [{ client_id: undefined }, { redirect_uri: undefined }, { client_id: 'evil' }, { redirect_uri: 'https://evil.example.com/auth/callback' }, { redirect_uri: 'http://evil.example.com/auth/callback' }, { redirect_uri: 'http://127.0.0.1:1/other' }]) {
        const r = await c.get(q(over));
        expect(r.status, JSON.stringify(over)).toBe(400);
        expect(r.headers.get('content-type')).toContain('text/plain');
        expect(r.headers.get('location')).toBeNull();
      }
      const cases: [Record<string, string | undefined>, string][] = [
        [{ scope: 'profile' }, 'invalid_scope'],
        [{ response_type: 'token' }, 'unsupported_response_type'],
        [{ code_challenge: undefined }, 'invalid_request'],
        [{ code_challenge_method: 'plain' }, 'invalid_request'],
        [{ prompt: 'none' }, 'login_required'],
        [{ request: 'eyJ' }, 'request_not_supported'],
      ];
      for (const [over, error] of cases) {
        const r = await c.get(q(over));
        expect(r.status, JSON.stringify(over)).toBe(302);
        const url = new URL(r.headers.get('location')!);
        expect(url.searchParams.get('error')).toBe(error);
        expect(url.searchParams.get('state')).toBe('s1');
      }
      // Loopback with any port, https localhost and the custom scheme are registered by default.
      for (const uri of ['http://localhost:8080/auth/callback', 'https://localhost:1280/auth/callback', 'https://127.0.0.1:9/auth/callback', 'openziti://auth/callback']) {
        const r = await c.get(q({ redirect_uri: uri }));
        expect(r.status, uri).toBe(302);
        expect(r.headers.get('location')).toContain('/oidc/login/username?authRequestID=');
      }
      expect((await c.get(q({ method: 'cert' }))).headers.get('location')).toContain('/oidc/login/cert?');
      expect((await c.get(q({ method: 'ext-jwt' }))).headers.get('location')).toContain('/oidc/login/ext-jwt?');
    });
  });

  describe('token endpoint (§5.5)', () => {
    it('a code is redeemed once: a replay is refused and ends the session the first redemption started', async () => {
      const user = await newUser();
      const flow = await oidc.authorize();
      await oidc.login(flow, 'username', { username: user.username, password: PASSWORD });
      const { code } = await oidc.callback(flow);
      const first = await oidc.redeem(flow, code);
      expect(first.status).toBe(200);
      expect((await bearer(client(), `${CLIENT}/current-identity`, first.body.access_token)).status).toBe(200);
      const replay = await oidc.redeem(flow, code);
      expect(replay.status).toBe(400);
      expect(replay.body).toMatchObject({ error: 'invalid_grant' });
      // The tokens of the first redemption are refused from now on (this instance at once).
      expect((await bearer(client(), `${CLIENT}/current-identity`, first.body.access_token)).status).toBe(401);
      expect((await oidc.refresh(first.body.refresh_token)).status).toBe(400);
    });

    it('concurrent redemptions of one code: exactly one gets tokens', async () => {
      const user = await newUser();
      const flow = await oidc.authorize();
      await oidc.login(flow, 'username', { username: user.username, password: PASSWORD });
      const { code } = await oidc.callback(flow);
      const replies = await Promise.all(Array.from({ length: 8 }, () => oidc.redeem(flow, code)));
      expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
      expect(replies.filter((r) => r.status === 400 && r.body.error === 'invalid_grant')).toHaveLength(7);
    });

    it('checks PKCE, the redirect URI, the client and the grant type', async () => {
      const user = await newUser();
      const flow = await oidc.authorize();
      await oidc.login(flow, 'username', { username: user.username, password: PASSWORD });
      const { code } = await oidc.callback(flow);
      const bad: [Record<string, string | undefined>, number, string][] = [
        [{ code_verifier: 'A'.repeat(43) }, 400, 'invalid_grant'],
        [{ code_verifier: undefined }, 400, 'invalid_request'],
        [{ redirect_uri: 'http://127.0.0.1:1/auth/callback' }, 400, 'invalid_grant'],
        [{ client_id: 'native' }, 400, 'invalid_grant'],
        [{ client_id: 'evil' }, 401, 'invalid_client'],
        [{ code: 'nope' }, 400, 'invalid_grant'],
        [{ grant_type: 'password' }, 400, 'unsupported_grant_type'],
        [{ grant_type: undefined }, 400, 'invalid_request'],
      ];
      for (const [over, status, error] of bad) {
        const r = await oidc.redeem(flow, code, over);
        expect(r.status, JSON.stringify(over)).toBe(status);
        expect(r.body.error, JSON.stringify(over)).toBe(error);
      }
      const json = await client().request('/oidc/oauth/token', { method: 'POST', body: { grant_type: 'authorization_code', code } });
      expect(json.status).toBe(400);
      // None of the failures used the code up.
      expect((await oidc.redeem(flow, code)).status).toBe(200);
    });

    it('without offline_access there is no refresh token', async () => {
      const user = await newUser();
      const t = await oidc.passwordTokens(user.username, PASSWORD, { scope: 'openid' });
      expect(t.refresh_token).toBeUndefined();
      expect(claims(t.access_token).scopes).toEqual(['openid']);
    });
  });

  describe('userinfo, introspection, logged-out, health', () => {
    it('answers for a live access token and refuses anything else', async () => {
      const user = await newUser();
      const t = await oidc.passwordTokens(user.username, PASSWORD);
      const info = await bearer(client(), '/oidc/userinfo', t.access_token);
      expect(info.status).toBe(200);
      expect(info.body.sub).toBe(user.identityId);
      expect((await client().get('/oidc/userinfo')).status).toBe(401);
      const active = await client().request('/oidc/oauth/introspect', { method: 'POST', raw: form({ token: t.access_token, client_id: 'openziti' }), headers: { 'content-type': FORM } });
      expect(active.body).toMatchObject({ active: true, sub: user.identityId, token_type: 'Bearer' });
      const garbage = await client().request('/oidc/oauth/introspect', { method: 'POST', raw: form({ token: 'x', client_id: 'openziti' }), headers: { 'content-type': FORM } });
      expect(garbage.body).toEqual({ active: false });
      expect((await client().request('/oidc/oauth/introspect', { method: 'POST', raw: form({ token: 'x' }), headers: { 'content-type': FORM } })).status).toBe(401);
      expect((await client().get('/oidc/logged-out')).text).toBe('signed out successfully');
      expect((await client().get('/oidc/healthz')).body).toEqual({ status: 'ok' });
      expect((await client().get('/oidc/nothing-here')).status).toBe(404);
    });
  });
};

export default oidcFlowSuite;
