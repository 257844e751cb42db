import { createLocalJWKSet, exportJWK, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oidcSigningKeys } from '../../src/db/schema/index.js';
import { mintServiceAccessToken } from '../../src/oidc/tokens.js';
import { CLIENT } from '../helpers/client.js';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';
import { storeFixtures, unique } from '../shared/auth-fixtures.js';
import { bearer, claims, OidcClient, within } from '../shared/oidc-fixtures.js';

const PASSWORD = 'oidc-node-Passw0rd!';

describe('ZITI_OIDC=false', () => {
  let t: NodeTestApp;
  beforeAll(async () => {
    t = await createNodeTestApp({ ZITI_OIDC: 'false' });
  });
  afterAll(() => t?.close());

  it('announces no OIDC, serves no /oidc and takes no bearer token as a session', async () => {
    const version = await t.client.get(`${CLIENT}/version`);
    expect(version.body.data.capabilities).toEqual([]);
    expect(version.body.data.apiVersions['edge-oidc'].v1).toEqual({ path: '/oidc', apiBaseUrls: [] });
    for (const path of ['/oidc/.well-known/openid-configuration', '/oidc/keys', '/oidc/authorize']) {
      const reply = await t.client.get(path);
      expect(reply.status, path).toBe(404);
      expect(reply.body.error.code).toBe('NOT_FOUND');
    }
    expect((await bearer(t.client, `${CLIENT}/current-identity`, 'eyJ.eyJ.sig')).status).toBe(401);
  });
});

describe('with OIDC on', () => {
  let t: NodeTestApp;
  const oidc = new OidcClient(() => t.client);
  beforeAll(async () => {
    t = await createNodeTestApp({ ZITI_OIDC_ACCESS_TOKEN_MINUTES: '5', ZITI_OIDC_REFRESH_TOKEN_MINUTES: '2' });
  });
  afterAll(() => t?.close());

  async function login() {
    const username = unique('oidcn');
    const ids = await storeFixtures(t.deps.db).createUser({ username, password: PASSWORD });
    return { ...ids, tokens: await oidc.passwordTokens(username, PASSWORD) };
  }

  it('honours the configured lifetimes, a refresh token always outliving its access token', async () => {
    const { tokens } = await login();
    expect(tokens.expires_in).toBe(300);
    const access = claims(tokens.access_token);
    const refresh = claims(tokens.refresh_token!);
    expect(access.exp - access.iat).toBe(300);
    expect(refresh.exp - refresh.iat).toBe(361);
  });

  it('expired tokens are refused, by the clock of the app (access, then refresh)', async () => {
    const { tokens } = await login();
    expect((await bearer(t.client, `${CLIENT}/current-identity`, tokens.access_token)).status).toBe(200);
    t.advance(301_000);
    expect((await bearer(t.client, `${CLIENT}/current-identity`, tokens.access_token)).status).toBe(401);
    expect((await oidc.refresh(tokens.refresh_token!)).status).toBe(200);
    t.advance(400_000);
    expect((await oidc.refresh(tokens.refresh_token!)).body.error).toBe('invalid_grant');
  });

  it('mints the service-access token of POST /sessions for a bearer session (§6.4)', async () => {
    const { identityId, tokens } = await login();
    const asid = claims(tokens.access_token).z_asid;
    const sessionId = crypto.randomUUID();
    const token = await mintServiceAccessToken(t.deps, { identityId, apiSessionId: asid, serviceId: 'svc-1', type: 'Dial', sessionId });
    const jwks = createLocalJWKSet((await t.client.get('/oidc/keys')).body);
    const { payload, protectedHeader } = await jwtVerify(token, jwks, { issuer: 'https://localhost:1280', audience: 'openziti', currentDate: new Date(t.deps.now()) });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'JWT', kid: t.deps.pki.serverFingerprint });
    expect(payload).toMatchObject({ sub: 'svc-1', jti: sessionId, z_asid: asid, z_iid: identityId, z_st: 'Dial', z_t: 's', aud: ['openziti'] });
    expect(payload.exp! - payload.iat!).toBe(365 * 24 * 3600);
    const bounded = claims(await mintServiceAccessToken(t.deps, { identityId, apiSessionId: asid, serviceId: 'svc-1', type: 'Bind', sessionId, expiresAt: t.deps.now() + 60_000 }));
    expect(bounded.exp - bounded.iat).toBe(60);
    expect(bounded.z_st).toBe('Bind');
    // It is not a session credential.
    expect((await bearer(t.client, `${CLIENT}/current-identity`, token)).status).toBe(401);
  });

  it('verifies tokens of a key another instance (or an earlier certificate) published, and publishes it until it expires', async () => {
    const { tokens } = await login();
    const other = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const kid = 'a'.repeat(40);
    const jwk = await exportJWK(other.publicKey);
    const now = t.deps.now();
    await t.deps.db.insert(oidcSigningKeys).values({ kid, alg: 'ES256', jwk: JSON.stringify(jwk), notAfter: now + 86_400_000, createdAt: now });
    const token = await new SignJWT({ ...claims(tokens.access_token), jti: crypto.randomUUID() }).setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' }).sign(other.privateKey);
    // An unknown kid re-reads the published keys at most once a second.
    expect(await within(1_000, async () => (await bearer(t.client, `${CLIENT}/current-identity`, token)).status === 200)).toBeGreaterThanOrEqual(0);
    t.advance(61_000);
    const keys = (await t.client.get('/oidc/keys')).body.keys.map((k: { kid: string }) => k.kid);
    expect(keys).toEqual(expect.arrayContaining([t.deps.pki.serverFingerprint, kid]));
    // A key whose certificate expired longer ago than any token lives is no longer published.
    await t.deps.db.insert(oidcSigningKeys).values({ kid: 'b'.repeat(40), alg: 'ES256', jwk: JSON.stringify(jwk), notAfter: now - 10 * 86_400_000, createdAt: now });
    t.advance(61_000);
    expect((await t.client.get('/oidc/keys')).body.keys.map((k: { kid: string }) => k.kid)).not.toContain('b'.repeat(40));
  });
});
