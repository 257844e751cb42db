import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { CLIENT, MGMT } from '../helpers/client.js';
import { storeFixtures, unique } from './auth-fixtures.js';
import { basic, bearer, claims, foreign, forge, form, FORM, OidcClient, type TokenSet } from './oidc-fixtures.js';
import type { Suite } from './suite.js';

export const secrets = ['oidc-tokens-Passw0rd!'];
const PASSWORD = 'oidc-tokens-Passw0rd!';
const TYPE = 'urn:ietf:params:oauth:token-type:';

/**
 * Refresh and RFC 8693 exchange (reference oidc.md §5.6, §5.7): rotation with a refused (and session-ending)
 * reuse, the Go SDK's double exchange, revocation and end-session; and which bearer tokens the REST APIs
 * refuse: another key, expired, wrong `z_t`, audience or issuer (§7.1). Node and workerd.
 */
const oidcTokensSuite: Suite = ({ client, db }) => {
  const oidc = new OidcClient(client);

  async function tokens(scope?: string): Promise<TokenSet & { identityId: string }> {
    const username = unique('oidct');
    const { identityId } = await storeFixtures(db()).createUser({ username, password: PASSWORD });
    return { ...(await oidc.passwordTokens(username, PASSWORD, scope ? { scope } : {})), identityId };
  }
  const me = (token: string) => bearer(client(), `${CLIENT}/current-identity`, token);

  describe('refresh_token grant', () => {
    it('rotates: new tokens for the same session, the old refresh token refused, and its reuse ends the session', async () => {
      const t = await tokens();
      const first = claims(t.access_token);
      const r1 = await oidc.refresh(t.refresh_token!);
      expect(r1.status, r1.text).toBe(200);
      const next = claims(r1.body.access_token);
      expect(next).toMatchObject({ sub: t.identityId, z_asid: first.z_asid, z_authid: first.z_authid, amr: ['password'], z_t: 'a' });
      expect(next.jti).not.toBe(first.jti);
      const rotated = claims(r1.body.refresh_token);
      expect(rotated.jti).not.toBe(claims(t.refresh_token!).jti);
      expect(rotated.z_asid).toBe(first.z_asid);
      expect(typeof r1.body.id_token).toBe('string');
      expect((await me(r1.body.access_token)).status).toBe(200);

      // The token just rotated out: refused, the session goes on (a benign race of one client).
      const again = await oidc.refresh(t.refresh_token!);
      expect(again.status).toBe(400);
      expect(again.body.error).toBe('invalid_grant');
      const r2 = await oidc.refresh(r1.body.refresh_token);
      expect(r2.status).toBe(200);
      // A token two rotations old is in somebody else's hands: the whole session ends.
      const stale = await oidc.refresh(t.refresh_token!);
      expect(stale.status).toBe(400);
      expect((await oidc.refresh(r2.body.refresh_token)).status).toBe(400);
      expect((await me(r2.body.access_token)).status).toBe(401);
    });

    it('concurrent refreshes with one token: exactly one rotates', async () => {
      const t = await tokens();
      const replies = await Promise.all(Array.from({ length: 6 }, () => oidc.refresh(t.refresh_token!)));
      expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
      expect(replies.filter((r) => r.status === 400)).toHaveLength(5);
      const winner = replies.find((r) => r.status === 200)!;
      expect((await oidc.refresh(winner.body.refresh_token)).status).toBe(200);
    });

    it('refuses another client, a wider scope, an access token, garbage and an unknown client', async () => {
      const t = await tokens();
      expect((await oidc.refresh(t.refresh_token!, 'native')).body.error).toBe('invalid_grant');
      const wider = await oidc.token({ grant_type: 'refresh_token', refresh_token: t.refresh_token, client_id: 'openziti', scope: 'openid profile' });
      expect(wider.body.error).toBe('invalid_scope');
      expect((await oidc.refresh(t.access_token)).body.error).toBe('invalid_grant');
      expect((await oidc.refresh('garbage')).body.error).toBe('invalid_grant');
      const unknown = await oidc.refresh(t.refresh_token!, 'evil');
      expect(unknown.status).toBe(401);
      expect(unknown.body.error).toBe('invalid_client');
      // None of that used the token up.
      expect((await oidc.refresh(t.refresh_token!)).status).toBe(200);
    });
  });

  describe('token exchange (RFC 8693)', () => {
    it('does what the Go SDK does: refresh for new tokens, then the same subject for an ID token', async () => {
      const t = await tokens();
      const x = await oidc.exchange(t.refresh_token!, 'refresh_token', 'refresh_token', 'native');
      expect(x.status, x.text).toBe(200);
      expect(x.body).toMatchObject({ issued_token_type: `${TYPE}refresh_token`, token_type: 'Bearer', expires_in: 1800 });
      expect(claims(x.body.access_token)).toMatchObject({ z_t: 'a', sub: t.identityId, z_asid: claims(t.access_token).z_asid });
      expect(claims(x.body.refresh_token).z_t).toBe('r');
      const id = await oidc.exchange(t.refresh_token!, 'refresh_token', 'id_token', 'native');
      expect(id.status, id.text).toBe(200);
      expect(id.body).toMatchObject({ issued_token_type: `${TYPE}id_token`, token_type: 'N_A' });
      expect(claims(id.body.access_token)).toMatchObject({ sub: t.identityId, aud: ['openziti'] });
      expect(id.body.expires_in).toBeUndefined();
      // An ID token is not a bearer credential.
      expect((await me(id.body.access_token)).status).toBe(401);
      // The rotated-out token may not mint access or refresh tokens.
      expect((await oidc.exchange(t.refresh_token!, 'refresh_token', 'refresh_token')).body.error).toBe('invalid_grant');
      expect((await oidc.exchange(x.body.refresh_token, 'refresh_token', 'access_token')).status).toBe(200);
      // The default requested type is a refresh token.
      const dflt = await oidc.exchange(x.body.refresh_token, 'refresh_token', undefined, 'openziti');
      expect(dflt.status).toBe(200);
      expect(dflt.body.issued_token_type).toBe(`${TYPE}refresh_token`);
    });

    it('exchanges an access token for another (with an audience), and refuses bad subjects and clients', async () => {
      const t = await tokens();
      const access = await oidc.token(
        { grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token: t.access_token, subject_token_type: `${TYPE}access_token`, requested_token_type: `${TYPE}access_token`, audience: 'native' },
        { authorization: basic('openziti') },
      );
      expect(access.status, access.text).toBe(200);
      expect(claims(access.body.access_token)).toMatchObject({ aud: ['native'], sub: t.identityId });
      expect((await me(access.body.access_token)).status).toBe(200);
      const refresh = await oidc.exchange(t.access_token, 'access_token', 'refresh_token', 'openziti');
      expect(refresh.status).toBe(200);
      expect((await oidc.refresh(refresh.body.refresh_token)).status).toBe(200);

      const bad: [Record<string, string>, Record<string, string>, number, string][] = [
        [{ subject_token: t.access_token, subject_token_type: `${TYPE}access_token` }, {}, 401, 'invalid_client'],
        [{ subject_token: t.id_token, subject_token_type: `${TYPE}id_token` }, { authorization: basic('native') }, 400, 'invalid_request'],
        [{ subject_token: t.access_token, subject_token_type: `${TYPE}jwt` }, { authorization: basic('native') }, 400, 'invalid_request'],
        [{ subject_token: 'garbage', subject_token_type: `${TYPE}access_token` }, { authorization: basic('native') }, 400, 'invalid_grant'],
        [{ subject_token: t.access_token, subject_token_type: `${TYPE}access_token`, audience: 'elsewhere' }, { authorization: basic('native') }, 400, 'invalid_target'],
        [{ subject_token: t.access_token, subject_token_type: `${TYPE}access_token`, scope: 'openid profile' }, { authorization: basic('native') }, 400, 'invalid_scope'],
        [{ subject_token_type: `${TYPE}access_token` }, { authorization: basic('native') }, 400, 'invalid_request'],
        [{ subject_token: t.access_token, subject_token_type: `${TYPE}access_token` }, { authorization: basic('evil') }, 401, 'invalid_client'],
      ];
      for (const [values, headers, status, error] of bad) {
        const r = await oidc.token({ grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', ...values }, headers);
        expect(r.status, JSON.stringify(values)).toBe(status);
        expect(r.body.error, JSON.stringify(values)).toBe(error);
      }
    });
  });

  describe('revoke and end_session', () => {
    it('/oidc/revoke with a refresh token ends the session; with an access token revokes that token only', async () => {
      const t = await tokens();
      const revokeAt = (path: string, values: Record<string, string>) => client().request(path, { method: 'POST', raw: form(values), headers: { 'content-type': FORM } });
      const other = await oidc.exchange(t.access_token, 'access_token', 'access_token', 'openziti');
      const r = await revokeAt('/oidc/revoke', { token: t.access_token, token_type_hint: 'access_token', client_id: 'openziti' });
      expect(r.status).toBe(200);
      expect(r.text).toBe('');
      expect((await me(t.access_token)).status).toBe(401);
      expect((await me(other.body.access_token)).status).toBe(200);
      const s = await revokeAt('/oidc/oauth/revoke', { token: t.refresh_token!, token_type_hint: 'refresh_token', client_id: 'openziti' });
      expect(s.status).toBe(200);
      expect((await me(other.body.access_token)).status).toBe(401);
      expect((await oidc.refresh(t.refresh_token!)).body.error).toBe('invalid_grant');
      // Garbage is ignored; a missing token or an unknown client is an error.
      expect((await revokeAt('/oidc/revoke', { token: 'garbage', client_id: 'openziti' })).status).toBe(200);
      expect((await revokeAt('/oidc/revoke', { client_id: 'openziti' })).body.error).toBe('invalid_request');
      expect((await revokeAt('/oidc/revoke', { token: 'x', client_id: 'evil' })).status).toBe(401);
    });

    it('/oidc/end_session with an ID token hint ends its session and goes to an allowed post-logout URI', async () => {
      const t = await tokens();
      const q = (values: Record<string, string>) => `/oidc/end_session?${form(values)}`;
      const refused = await client().get(q({ id_token_hint: t.id_token, post_logout_redirect_uri: 'https://evil.example.com/auth/logout' }));
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: 'invalid_request', error_description: 'post_logout_redirect_uri invalid' });
      expect((await me(t.access_token)).status).toBe(200);
      const wrongClient = await client().get(q({ id_token_hint: t.id_token, client_id: 'native' }));
      expect(wrongClient.status).toBe(400);
      const out = await client().get(q({ id_token_hint: t.id_token, post_logout_redirect_uri: 'http://localhost:20314/auth/logout', state: 'st' }));
      expect(out.status).toBe(302);
      expect(out.headers.get('location')).toBe('http://localhost:20314/auth/logout?state=st');
      expect((await me(t.access_token)).status).toBe(401);
      expect((await oidc.refresh(t.refresh_token!)).status).toBe(400);
      const plain = await client().get('/oidc/end_session');
      expect(plain.headers.get('location')).toBe('https://localhost:1280/oidc/logged-out');
    });
  });

  describe('bearer tokens the REST APIs refuse (§7.1)', () => {
    it('refuses another key, expired, not yet valid, wrong z_t, audience and issuer, a refresh token, no exp, and alg none', async () => {
      const t = await tokens();
      const good = claims(t.access_token);
      const { kid } = decodeProtectedHeader(t.access_token) as { kid: string };
      const now = Math.floor(Date.now() / 1000);
      const sign = (over: Record<string, unknown>) => forge(db(), { ...good, ...over }, kid);
      // The forging helper itself makes tokens the APIs accept.
      expect((await me(await sign({ jti: crypto.randomUUID() }))).status).toBe(200);
      const { exp: _exp, ...noExp } = good;
      const refused = [
        await foreign(good, kid),
        await sign({ exp: now - 60, iat: now - 1900, nbf: now - 1900 }),
        await sign({ nbf: now + 600 }),
        await sign({ z_t: 'r' }),
        await sign({ z_t: 's' }),
        await sign({ aud: ['elsewhere'] }),
        await sign({ iss: 'https://evil.example.com/oidc' }),
        await sign({ iss: 'https://localhost:1280/other' }),
        await sign({ z_asid: undefined }),
        await forge(db(), noExp, kid),
        await forge(db(), good, 'f'.repeat(40)),
        t.refresh_token!,
        t.id_token,
        `${btoa(JSON.stringify({ alg: 'none', kid })).replace(/=+$/, '')}.${btoa(JSON.stringify(good)).replace(/=+$/, '')}.`,
      ];
      for (const [i, token] of refused.entries()) {
        const r = await me(token);
        expect(r.status, `token ${i}`).toBe(401);
        expect(r.body.error.code).toBe('UNAUTHORIZED');
        expect((await bearer(client(), `${MGMT}/current-api-session`, token)).status, `token ${i}`).toBe(401);
      }
    });

    it('a token naming the native audience and another host name of the controller is accepted', async () => {
      const t = await tokens();
      const { kid } = decodeProtectedHeader(t.access_token) as { kid: string };
      const token = await forge(db(), { ...claims(t.access_token), aud: ['native'], iss: 'https://127.0.0.1:1280/oidc', jti: crypto.randomUUID() }, kid);
      expect((await me(token)).status).toBe(200);
    });
  });
};

export default oidcTokensSuite;
