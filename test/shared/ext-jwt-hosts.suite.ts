import { describe, expect, it } from 'vitest';
import { isPrivateAddress, refuseJwksUrl } from '../../src/auth/ext-jwt/hosts.js';
import { bearerCandidates } from '../../src/auth/ext-jwt/verify.js';
import { TypedApi, type ManagementOperations } from '../helpers/typed-api.js';
import { jwksBody, providerKey, signToken } from './ext-jwt-fixtures.js';
import { uniqueName } from './identities.suite.js';
import type { Suite } from './suite.js';

/** Where a JWKS may come from (GHSA-whjr-3j94-gw3c) and how bearer values are picked, on both runtimes. */
const hostsSuite: Suite = ({ runtime, client, jwks }) => {
  describe('JWKS hosts', () => {
    it('classifies loopback, private, link-local, metadata and reserved addresses, v4 and v6', () => {
      for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '::ffff:a00:1', '64:ff9b::a9fe:a9fe', 'ff02::1', 'not-an-address']) {
        expect(isPrivateAddress(a), a).toBe(true);
      }
      for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPrivateAddress(a), a).toBe(false);
    });

    it('refuses http, credentials, private addresses in any spelling and internal names unless private hosts are allowed', () => {
      const refused = ['http://idp.example.com/jwks', 'https://user:pw@idp.example.com/jwks', 'https://127.0.0.1/jwks', 'https://2130706433/jwks', 'https://0x7f.0.0.1/jwks', 'https://[::1]/jwks', 'https://[::ffff:169.254.169.254]/', 'https://169.254.169.254/latest/meta-data', 'https://localhost/jwks', 'https://a.localhost/jwks', 'https://metadata.google.internal/', 'https://intranet/jwks', 'ftp://idp.example.com/'];
      for (const u of refused) expect(refuseJwksUrl(new URL(u), false), u).toBeDefined();
      expect(refuseJwksUrl(new URL('https://login.example.com/.well-known/jwks.json'), false)).toBeUndefined();
      for (const u of ['http://127.0.0.1:8080/jwks', 'https://localhost/jwks', 'http://keycloak.internal/jwks']) expect(refuseJwksUrl(new URL(u), true), u).toBeUndefined();
      expect(refuseJwksUrl(new URL('ftp://127.0.0.1/'), true)).toBeDefined();
    });

    it('takes at most two bearer values, case-sensitively, trimmed', () => {
      expect(bearerCandidates('Bearer a.b.c')).toEqual(['a.b.c']);
      expect(bearerCandidates('Bearer  x , Basic zzz, Bearer y, Bearer z')).toEqual(['x', 'y']);
      expect(bearerCandidates('bearer x, Bearer ')).toEqual([]);
      expect(bearerCandidates(null)).toEqual([]);
    });

    // workerd runs with private hosts refused (the default); Node's suites allow them to reach the test provider.
    if (runtime === 'workers') {
      it('refuses a signer whose JWKS is on a private address or plain http, without fetching it', async () => {
        const token = await client().login();
        const admin = new TypedApi<ManagementOperations>(client, 'management', () => token);
        const key = await providerKey('ES256');
        const path = `/plain-${crypto.randomUUID()}`;
        jwks().serve(path, { body: jwksBody(key) });
        const person = (await admin.ok('createIdentity', { body: { name: uniqueName('p'), type: 'User', isAdmin: false } })).data!.id!;
        for (const endpoint of [jwks().url(path).replace('https:', 'http:'), 'https://127.0.0.1/jwks', 'https://169.254.169.254/jwks', 'https://localhost/jwks']) {
          const issuer = uniqueName('https://private-idp');
          await admin.ok('createExternalJwtSigner', { body: { name: uniqueName('s'), enabled: true, issuer, audience: 'a', jwksEndpoint: endpoint } });
          const reply = await client().request('/edge/client/v1/authenticate?method=ext-jwt', { method: 'POST', headers: { authorization: `Bearer ${await signToken(key, { iss: issuer, aud: 'a', sub: person })}` } });
          expect(reply.status, endpoint).toBe(401);
        }
        expect(jwks().hits(path)).toBe(0);
      });
    }
  });
};

export default hostsSuite;
