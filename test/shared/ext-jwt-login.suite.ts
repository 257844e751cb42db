import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENT, MGMT } from '../helpers/client.js';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ClientOperations, type ManagementOperations } from '../helpers/typed-api.js';
import { hmacToken, jwksBody, providerKey, signToken, unsignedToken, type ProviderKey } from './ext-jwt-fixtures.js';
import { expectError, uniqueName } from './identities.suite.js';
import type { Suite } from './suite.js';

const AUDIENCE = 'ziti-controller';

const policyBody = (extJwt: { allowed: boolean; allowedSigners: string[] }, requireExtJwtSigner: string | null = null) => ({
  name: uniqueName('ap'),
  primary: {
    cert: { allowed: true, allowExpiredCerts: true },
    updb: { allowed: true, minPasswordLength: 5, requireSpecialChar: false, requireNumberChar: false, requireMixedCase: false, maxAttempts: 0, lockoutDurationMinutes: 0 },
    extJwt,
  },
  secondary: { requireTotp: false, requireExtJwtSigner },
});

/** `POST /authenticate?method=ext-jwt` on both APIs and the secondary ext-jwt check (reference auth-and-pki §8.2, §8.3, §1.7). */
const extJwtSuite: Suite = ({ client, jwks }) => {
  let token = '';
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => token);
  const user = new TypedApi<ClientOperations>(client, 'client');
  let rsa: ProviderKey, ec: ProviderKey, ed: ProviderKey, stranger: ProviderKey;
  let path = '';
  let signerId = '';
  let issuer = '';
  let identityId = '';

  const createSigner = async (body: Record<string, unknown>) => (await admin.ok('createExternalJwtSigner', { body: { name: uniqueName('signer'), enabled: true, issuer: uniqueName('https://issuer'), audience: AUDIENCE, ...body } as never })).data!.id!;
  const createIdentity = async (body: Record<string, unknown> = {}) => (await admin.ok('createIdentity', { body: { name: uniqueName('person'), type: 'User', isAdmin: false, ...body } as never })).data!.id!;
  const login = (bearer: string | string[] | undefined, api = CLIENT, body: Record<string, unknown> | undefined = undefined) =>
    client().request(`${api}/authenticate?method=ext-jwt`, { method: 'POST', body, headers: bearer === undefined ? {} : { authorization: (Array.isArray(bearer) ? bearer : [bearer]).map((b) => `Bearer ${b}`).join(', ') } });
  const expectRefused = async (bearer: string | string[] | undefined) => {
    const reply = await login(bearer);
    expectError(reply, 401, 'INVALID_AUTH');
    expect(reply.headers.get('zt-session')).toBeNull();
    expect(reply.body.error.cause).toBeUndefined();
  };
  const claims = (extra: Record<string, unknown> = {}) => ({ iss: issuer, aud: AUDIENCE, sub: identityId, ...extra });

  beforeAll(async () => {
    token = await client().login();
    [rsa, ec, ed, stranger] = await Promise.all([providerKey('RS256'), providerKey('ES256'), providerKey('EdDSA'), providerKey('ES256')]);
    path = `/jwks-${crypto.randomUUID()}`;
    jwks().serve(path, { body: jwksBody(rsa, ec, ed) });
    issuer = uniqueName('https://idp');
    signerId = await createSigner({ issuer, jwksEndpoint: jwks().url(path), externalAuthUrl: 'https://idp.example.com/authorize', clientId: 'ziti-browser', scopes: ['openid', 'profile'] });
    identityId = await createIdentity();
  });

  describe('ext-jwt login', () => {
    it('logs in with RS256, ES256 and EdDSA tokens from a JWKS, on both APIs', async () => {
      for (const key of [rsa, ec, ed]) {
        const reply = expectConforms(await login(await signToken(key, claims())), 'authenticate', 'client');
        expect(reply.body.data).toMatchObject({ identityId, authenticatorId: `extJwtId:${signerId}`, isCertExtendable: false, authQueries: [] });
        expect(reply.headers.get('zt-session')).toBe(reply.body.data.token);
        expect((await user.call('getCurrentIdentity', { token: reply.body.data.token })).body.data.id).toBe(identityId);
      }
      const mgmt = expectConforms(await login(await signToken(ec, claims()), MGMT), 'authenticate');
      expect(mgmt.body.data.identityId).toBe(identityId);
    });

    it('takes the first of at most two bearer values that verifies', async () => {
      const good = await signToken(ec, claims());
      expect((await login(['garbage', good])).status).toBe(200);
      await expectRefused(['garbage', 'more-garbage', good]);
      await expectRefused(undefined);
      expectError(await client().request(`${CLIENT}/authenticate?method=ext-jwt`, { method: 'POST', headers: { authorization: `bearer ${good}` } }), 401, 'INVALID_AUTH');
    });

    it('refuses wrong issuer, wrong or missing audience, expired, not yet valid, unknown kid, HMAC, alg none and a wrong claim type', async () => {
      const now = Math.floor(Date.now() / 1000);
      await expectRefused(await signToken(ec, claims({ iss: `${issuer}/other` })));
      await expectRefused(await signToken(ec, claims({ aud: 'someone-else' })));
      await expectRefused(await signToken(ec, claims({ aud: undefined })));
      await expectRefused(await signToken(ec, claims({ exp: now - 5 })));
      await expectRefused(await signToken(ec, claims({ nbf: now + 60 })));
      await expectRefused(await signToken(stranger, claims()));
      // A stranger's key under a known kid: the signature does not verify.
      await expectRefused(await signToken({ ...stranger, kid: ec.kid }, claims()));
      // An RSA kid with an EC algorithm: the key type decides.
      await expectRefused(await signToken({ ...ec, kid: rsa.kid }, claims()));
      await expectRefused(await hmacToken(JSON.stringify(ec.jwk), { kid: ec.kid }, claims()));
      await expectRefused(unsignedToken({ kid: ec.kid }, claims()));
      await expectRefused(await signToken(ec, claims({ sub: 12345 })));
      await expectRefused(await signToken(ec, claims({ sub: '' })));
      await expectRefused(await signToken(ec, claims({ sub: 'no-such-identity' })));
      await expectRefused('not.a.jwt');
      // An audience list containing ours is fine; no exp at all is fine.
      expect((await login(await signToken(ec, claims({ aud: ['other', AUDIENCE], exp: undefined })))).status).toBe(200);
    });

    it('refuses a disabled signer, a signer the policy does not allow, a policy without ext-jwt, and a disabled identity', async () => {
      const key = await providerKey('ES256');
      const certIssuer = uniqueName('https://cert-idp');
      const certSigner = await createSigner({ issuer: certIssuer, certPem: key.certPem, kid: key.kid, enabled: false });
      const person = await createIdentity();
      await expectRefused(await signToken(key, { iss: certIssuer, aud: AUDIENCE, sub: person }));
      await admin.ok('patchExternalJwtSigner', { path: { id: certSigner }, body: { enabled: true } });
      expect((await login(await signToken(key, { iss: certIssuer, aud: AUDIENCE, sub: person }))).status).toBe(200);

      const onlyCert = (await admin.ok('createAuthPolicy', { body: policyBody({ allowed: true, allowedSigners: [certSigner] }) })).data!.id!;
      const restricted = await createIdentity({ authPolicyId: onlyCert });
      await expectRefused(await signToken(ec, claims({ sub: restricted })));
      expect((await login(await signToken(key, { iss: certIssuer, aud: AUDIENCE, sub: restricted }))).status).toBe(200);

      const noJwt = (await admin.ok('createAuthPolicy', { body: policyBody({ allowed: false, allowedSigners: [] }) })).data!.id!;
      await expectRefused(await signToken(ec, claims({ sub: await createIdentity({ authPolicyId: noJwt }) })));

      const disabled = await createIdentity();
      expect((await login(await signToken(ec, claims({ sub: disabled })))).status).toBe(200);
      await admin.ok('disableIdentity', { path: { id: disabled }, body: { durationMinutes: 0 } });
      await expectRefused(await signToken(ec, claims({ sub: disabled })));
    });

    it('uses a certificate signer registered under its kid, or its fingerprint without one', async () => {
      const key = await providerKey('RS256');
      const certIssuer = uniqueName('https://cert-idp');
      const id = await createSigner({ issuer: certIssuer, certPem: key.certPem });
      const fingerprint = (await admin.ok('detailExternalJwtSigner', { path: { id } })).data.fingerprint!;
      const person = await createIdentity();
      await expectRefused(await signToken(key, { iss: certIssuer, aud: AUDIENCE, sub: person }));
      expect((await login(await signToken({ ...key, kid: fingerprint }, { iss: certIssuer, aud: AUDIENCE, sub: person }))).status).toBe(200);
    });

    it('finds the identity by externalId from the configured claim, and uses an x5c certificate from the JWKS', async () => {
      const key = await providerKey('ES256');
      const der = key.certPem.replace(/-----[^-]+-----|\s/g, '');
      const x5cPath = `/x5c-${crypto.randomUUID()}`;
      // Only kid and x5c, as many providers (and the controller's own tests) publish them.
      jwks().serve(x5cPath, { body: JSON.stringify({ keys: [{ kid: key.kid, x5c: [der] }] }) });
      const x5cIssuer = uniqueName('https://x5c-idp');
      await createSigner({ issuer: x5cIssuer, jwksEndpoint: jwks().url(x5cPath), claimsProperty: 'email', useExternalId: true });
      const email = `${uniqueName('someone')}@example.com`;
      const person = await createIdentity({ externalId: email });
      const reply = await login(await signToken(key, { iss: x5cIssuer, aud: AUDIENCE, sub: 'ignored', email }));
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data.identityId).toBe(person);
      await expectRefused(await signToken(key, { iss: x5cIssuer, aud: AUDIENCE, sub: person }));
      await expectRefused(await signToken(key, { iss: x5cIssuer, aud: AUDIENCE, email: [email] }));
      // The certificate's key decides the algorithm: an RSA algorithm under that kid is refused.
      const rsaUnderKid = await providerKey('RS256', key.kid);
      await expectRefused(await signToken(rsaUnderKid, { iss: x5cIssuer, aud: AUDIENCE, email }));
    });

    it('resolves a kid shared by two signers through the issuer', async () => {
      const shared = await providerKey('ES256');
      const [a, b] = [`/shared-a-${crypto.randomUUID()}`, `/shared-b-${crypto.randomUUID()}`];
      jwks().serve(a, { body: jwksBody(shared) });
      jwks().serve(b, { body: jwksBody(shared) });
      const [issA, issB] = [uniqueName('https://tenant-a'), uniqueName('https://tenant-b')];
      await createSigner({ issuer: issA, jwksEndpoint: jwks().url(a) });
      await createSigner({ issuer: issB, jwksEndpoint: jwks().url(b), enabled: false });
      const person = await createIdentity();
      for (let i = 0; i < 5; i++) expect((await login(await signToken(shared, { iss: issA, aud: AUDIENCE, sub: person }))).status).toBe(200);
      await expectRefused(await signToken(shared, { iss: issB, aud: AUDIENCE, sub: person }));
    });

    it('picks up a key rotated at the provider on the next unknown kid, refetching at most once a second', async () => {
      const first = await providerKey('ES256');
      const rotated = await providerKey('RS256');
      const rotPath = `/rotating-${crypto.randomUUID()}`;
      jwks().serve(rotPath, { body: jwksBody(first) });
      const rotIssuer = uniqueName('https://rotating-idp');
      await createSigner({ issuer: rotIssuer, jwksEndpoint: jwks().url(rotPath) });
      const person = await createIdentity();
      const body = { iss: rotIssuer, aud: AUDIENCE, sub: person };
      expect((await login(await signToken(first, body))).status).toBe(200);
      expect(jwks().hits(rotPath)).toBe(1);
      jwks().serve(rotPath, { body: jwksBody(first, rotated) });
      // Within the second after the last fetch, an unknown kid does not refetch.
      const early = await login(await signToken(rotated, body));
      if (early.status === 401) expect(jwks().hits(rotPath)).toBeLessThanOrEqual(2);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await login(await signToken(rotated, body))).status).toBe(200);
      const hits = jwks().hits(rotPath);
      // Known kids are served from the cache; a burst of unknown kids refetches at most once.
      await Promise.all([login(await signToken(first, body)), ...Array.from({ length: 5 }, async () => login(await signToken(stranger, { ...body })))]);
      expect(jwks().hits(rotPath) - hits).toBeLessThanOrEqual(1);
    });

    it('does not let a slow or huge JWKS hold the request past the timeout', async () => {
      const key = await providerKey('ES256');
      const slowPath = `/slow-${crypto.randomUUID()}`;
      jwks().serve(slowPath, { body: jwksBody(key), delayMs: 5000 });
      const slowIssuer = uniqueName('https://slow-idp');
      await createSigner({ issuer: slowIssuer, jwksEndpoint: jwks().url(slowPath) });
      const person = await createIdentity();
      const started = Date.now();
      await expectRefused(await signToken(key, { iss: slowIssuer, aud: AUDIENCE, sub: person }));
      expect(Date.now() - started).toBeLessThan(3000);

      const hugePath = `/huge-${crypto.randomUUID()}`;
      jwks().serve(hugePath, { body: JSON.stringify({ keys: [key.jwk], padding: 'x'.repeat(2 * 1024 * 1024) }) });
      const hugeIssuer = uniqueName('https://huge-idp');
      await createSigner({ issuer: hugeIssuer, jwksEndpoint: jwks().url(hugePath) });
      await expectRefused(await signToken(key, { iss: hugeIssuer, aud: AUDIENCE, sub: person }));
    });
  });

  describe('secondary ext-jwt', () => {
    it('keeps a session partial on every request without a valid bearer token from the required signer', async () => {
      const policy = (await admin.ok('createAuthPolicy', { body: policyBody({ allowed: true, allowedSigners: [] }, signerId) })).data!.id!;
      const person = await createIdentity({ authPolicyId: policy });
      const username = uniqueName('second');
      await admin.ok('createAuthenticator', { body: { method: 'updb', identityId: person, username, password: 'second-factor-pw' } as never });
      const bearer = { authorization: `Bearer ${await signToken(ec, claims({ sub: person }))}` };

      const partial = expectConforms(await client().request(`${CLIENT}/authenticate?method=password`, { body: { username, password: 'second-factor-pw' } }), 'authenticate', 'client');
      const session = partial.body.data.token as string;
      expect(partial.body.data.authQueries).toEqual([{ typeId: 'EXT-JWT', provider: 'url', id: signerId, httpUrl: 'https://idp.example.com/authorize', clientId: 'ziti-browser', scopes: ['openid', 'profile'] }]);
      expectError(await user.call('listServices', { token: session }), 401, 'UNAUTHORIZED');
      expectError(await user.call('getCurrentIdentity', { token: session }), 401, 'UNAUTHORIZED');
      expect((await user.call('getCurrentAPISession', { token: session })).body.data.authQueries).toHaveLength(1);

      // With the token: fully authenticated for that request only.
      expect((await user.call('getCurrentIdentity', { token: session, headers: bearer })).status).toBe(200);
      expect((await user.call('listServices', { token: session, headers: bearer })).status).not.toBe(401);
      expect((await user.call('getCurrentAPISession', { token: session, headers: bearer })).body.data.authQueries).toEqual([]);
      expectError(await user.call('getCurrentIdentity', { token: session }), 401, 'UNAUTHORIZED');

      // Another identity's token, or another signer's, does not count.
      expectError(await user.call('getCurrentIdentity', { token: session, headers: { authorization: `Bearer ${await signToken(ec, claims())}` } }), 401, 'UNAUTHORIZED');
      const key = await providerKey('ES256');
      const otherIssuer = uniqueName('https://other-idp');
      await createSigner({ issuer: otherIssuer, certPem: key.certPem, kid: key.kid });
      expectError(await user.call('getCurrentIdentity', { token: session, headers: { authorization: `Bearer ${await signToken(key, { iss: otherIssuer, aud: AUDIENCE, sub: person })}` } }), 401, 'UNAUTHORIZED');
      // An expired token from the right signer does not either.
      expectError(await user.call('getCurrentIdentity', { token: session, headers: { authorization: `Bearer ${await signToken(ec, claims({ sub: person, exp: Math.floor(Date.now() / 1000) - 1 }))}` } }), 401, 'UNAUTHORIZED');

      // The login request itself is checked too.
      const full = await client().request(`${CLIENT}/authenticate?method=password`, { body: { username, password: 'second-factor-pw' }, headers: bearer });
      expect(full.body.data.authQueries).toEqual([]);
      const viaJwt = await login(bearer.authorization.slice(7));
      expect(viaJwt.body.data.authQueries).toEqual([]);
    });

    it('withholds admin rights while the secondary token is missing', async () => {
      const policy = (await admin.ok('createAuthPolicy', { body: policyBody({ allowed: true, allowedSigners: [] }, signerId) })).data!.id!;
      const adminPerson = await createIdentity({ authPolicyId: policy, isAdmin: true });
      const tokenJwt = await signToken(ed, claims({ sub: adminPerson }));
      const session = (await login(tokenJwt, MGMT)).body.data.token as string;
      expectError(await admin.call('listIdentities', { token: session }), 401, 'UNAUTHORIZED');
      expect((await admin.call('listIdentities', { token: session, headers: { authorization: `Bearer ${tokenJwt}` } })).status).toBe(200);
    });
  });
};

export default extJwtSuite;
