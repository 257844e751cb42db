import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { selectRows } from '../../src/db/client.js';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ClientOperations, type ManagementOperations } from '../helpers/typed-api.js';
import { providerKey } from './ext-jwt-fixtures.js';
import { expectError, expectFieldError, expectNotFound, uniqueName } from './identities.suite.js';
import type { Suite } from './suite.js';

/** Management `/external-jwt-signers` and the anonymous client list (reference auth-and-pki §8.1, §8.4). */
const signersSuite: Suite = ({ client, db }) => {
  let token = '';
  beforeAll(async () => {
    token = await client().login();
  });
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => token);
  const anonymous = new TypedApi<ClientOperations>(client, 'client');
  const jwks = (extra: Record<string, unknown> = {}) => ({ name: uniqueName('signer'), enabled: true, issuer: uniqueName('https://issuer'), audience: 'ziti', jwksEndpoint: 'https://idp.example.com/jwks', ...extra });
  const create = async (body: Record<string, unknown>) => (await admin.ok('createExternalJwtSigner', { body: body as never })).data!.id!;

  describe('external JWT signers', () => {
    it('creates a certificate signer with the derived certificate fields, and a JWKS signer', async () => {
      const key = await providerKey('ES256');
      const body = { ...jwks({ jwksEndpoint: undefined }), certPem: key.certPem, kid: key.kid, claimsProperty: '', scopes: ['openid', 'email'], clientId: 'cid', externalAuthUrl: 'https://idp.example.com/auth' };
      const created = expectConforms(await admin.call('createExternalJwtSigner', { body }), 'createExternalJwtSigner');
      const id = created.body.data!.id!;
      expect(created.body.data!._links!.self.href).toBe(`./external-jwt-signers/${id}`);
      const detail = expectConforms(await admin.call('detailExternalJwtSigner', { path: { id } }), 'detailExternalJwtSigner').body.data;
      expect(detail).toMatchObject({ id, name: body.name, issuer: body.issuer, audience: 'ziti', kid: key.kid, claimsProperty: 'sub', useExternalId: false, targetToken: 'ACCESS', scopes: ['openid', 'email'], clientId: 'cid', jwksEndpoint: null, commonName: `idp-${key.kid}` });
      expect(detail.fingerprint).toMatch(/^[0-9a-f]{40}$/);
      expect(Date.parse(detail.notAfter)).toBeGreaterThan(Date.now());

      const other = expectConforms(await admin.call('detailExternalJwtSigner', { path: { id: await create(jwks({ targetToken: 'ID' })) } }), 'detailExternalJwtSigner').body.data;
      expect(other).toMatchObject({ certPem: null, jwksEndpoint: 'https://idp.example.com/jwks', fingerprint: null, targetToken: 'ID', scopes: null, kid: null, externalAuthUrl: null, clientId: null });
      const list = expectConforms(await admin.call('listExternalJwtSigners', { query: { filter: `name = "${body.name}"` } }), 'listExternalJwtSigners');
      expect(list.body.data.map((s) => s.id)).toEqual([id]);
    });

    it('needs exactly one of certPem and jwksEndpoint, and exactly one valid certificate; nothing is written', async () => {
      const name = uniqueName('signer');
      const key = await providerKey('ES256');
      const neither = await admin.call('createExternalJwtSigner', { body: jwks({ name, jwksEndpoint: null }) });
      expectError(neither, 400, 'REFERENCED_ENTITY_NOT_FOUND');
      expect(neither.body.error!.cause).toMatchObject({ field: 'certPem' });
      const both = await admin.call('createExternalJwtSigner', { body: jwks({ name, certPem: key.certPem }) });
      expectError(both, 400, 'REFERENCED_ENTITY_NOT_FOUND');
      expect(both.body.error!.cause).toMatchObject({ field: 'jwksEndpoint' });
      const two = (await providerKey('ES256')).certPem;
      for (const certPem of ['not a certificate', `${key.certPem}\n${two}`, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----']) {
        expectError(await admin.call('createExternalJwtSigner', { body: jwks({ name, jwksEndpoint: null, certPem }) }), 400, 'INVALID_CERT_PEM');
      }
      expectFieldError(await admin.call('createExternalJwtSigner', { body: jwks({ name, jwksEndpoint: 'ftp://idp.example.com/keys' }) }), 400, 'jwksEndpoint');
      expect((await admin.ok('listExternalJwtSigners', { query: { filter: `name = "${name}"` } })).meta.pagination!.totalCount).toBe(0);
    });

    it('keeps name, issuer, kid and certificate unique', async () => {
      const key = await providerKey('RS256');
      const kid = uniqueName('kid');
      const first = jwks({ kid });
      await create(first);
      expectFieldError(await admin.call('createExternalJwtSigner', { body: jwks({ name: first.name }) }), 400, 'name', 'name must be unique');
      expectFieldError(await admin.call('createExternalJwtSigner', { body: jwks({ issuer: first.issuer }) }), 400, 'issuer', 'issuer must be unique');
      expectFieldError(await admin.call('createExternalJwtSigner', { body: jwks({ kid }) }), 400, 'kid', 'kid must be unique');
      await create(jwks({ jwksEndpoint: null, certPem: key.certPem }));
      expectFieldError(await admin.call('createExternalJwtSigner', { body: jwks({ jwksEndpoint: null, certPem: key.certPem }) }), 400, 'certPem', 'certPem must be unique');
      // Signers without a kid do not collide with each other.
      await create(jwks());
      await create(jwks());
    });

    it('admits one of 50 concurrent creates with the same issuer', async () => {
      const issuer = uniqueName('https://race');
      const replies = await Promise.all(Array.from({ length: 50 }, () => admin.call('createExternalJwtSigner', { body: jwks({ issuer }) })));
      expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
      for (const r of replies.filter((r) => r.status !== 201)) expect(r.body.error!.cause).toMatchObject({ field: 'issuer', reason: 'issuer must be unique' });
    });

    it('updates with PUT and PATCH, and switches key source with an explicit null', async () => {
      const key = await providerKey('EdDSA');
      const id = await create(jwks());
      expect((await admin.call('patchExternalJwtSigner', { path: { id }, body: { certPem: key.certPem, jwksEndpoint: null } })).status).toBe(200);
      const patched = (await admin.ok('detailExternalJwtSigner', { path: { id } })).data;
      expect(patched).toMatchObject({ jwksEndpoint: null, commonName: `idp-${key.kid}` });
      expectError(await admin.call('patchExternalJwtSigner', { path: { id }, body: { jwksEndpoint: 'https://idp.example.com/k' } }), 400, 'REFERENCED_ENTITY_NOT_FOUND');
      const put = jwks({ enabled: false, claimsProperty: 'email', useExternalId: true });
      expect((await admin.call('updateExternalJwtSigner', { path: { id }, body: put })).status).toBe(200);
      const updated = (await admin.ok('detailExternalJwtSigner', { path: { id } })).data;
      expect(updated).toMatchObject({ name: put.name, enabled: false, certPem: null, fingerprint: null, claimsProperty: 'email', useExternalId: true, jwksEndpoint: put.jwksEndpoint });
    });

    it('is referenced by auth policies: unknown ids are 404, a referenced signer cannot be deleted', async () => {
      const signer = await create(jwks());
      const missing = await admin.call('createAuthPolicy', { body: { name: uniqueName('ap'), primary: { cert: { allowed: true, allowExpiredCerts: true }, updb: { allowed: true, minPasswordLength: 5, requireSpecialChar: false, requireNumberChar: false, requireMixedCase: false, maxAttempts: 0, lockoutDurationMinutes: 0 }, extJwt: { allowed: true, allowedSigners: [signer, 'nope'] } }, secondary: { requireTotp: false } } });
      expectError(missing, 404, 'NOT_FOUND');
      expect(missing.body.error!.cause).toMatchObject({ field: 'primary.extJwt.allowedSigners[1]', value: 'nope' });
      const policyBody = (allowed: string[], required: string | null) => ({ name: uniqueName('ap'), primary: { cert: { allowed: true, allowExpiredCerts: true }, updb: { allowed: true, minPasswordLength: 5, requireSpecialChar: false, requireNumberChar: false, requireMixedCase: false, maxAttempts: 0, lockoutDurationMinutes: 0 }, extJwt: { allowed: true, allowedSigners: allowed } }, secondary: { requireTotp: false, requireExtJwtSigner: required } });
      const byAllowed = (await admin.ok('createAuthPolicy', { body: policyBody([signer], null) })).data!.id!;
      const refused = await admin.call('deleteExternalJwtSigner', { path: { id: signer } });
      expectError(refused, 409, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
      expect(refused.body.error!.cause).toMatchObject({ reason: `entity type externalJwtSigners referenced by authPolicies: [${byAllowed}]` });
      await admin.ok('deleteAuthPolicy', { path: { id: byAllowed } });
      const byRequired = (await admin.ok('createAuthPolicy', { body: policyBody([], signer) })).data!.id!;
      expectError(await admin.call('deleteExternalJwtSigner', { path: { id: signer } }), 409, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
      await admin.ok('deleteAuthPolicy', { path: { id: byRequired } });
      expect((await admin.call('deleteExternalJwtSigner', { path: { id: signer } })).status).toBe(200);
      expectNotFound(await admin.call('detailExternalJwtSigner', { path: { id: signer } }), 'externalJwtSigner', signer);
    });

    it('never leaves a policy naming a deleted signer, under 50 concurrent policy writes and a delete', async () => {
      const policy = (signer: string, i: number) => ({ name: uniqueName('race-ap'), primary: { cert: { allowed: true, allowExpiredCerts: true }, updb: { allowed: true, minPasswordLength: 5, requireSpecialChar: false, requireNumberChar: false, requireMixedCase: false, maxAttempts: 0, lockoutDurationMinutes: 0 }, extJwt: { allowed: true, allowedSigners: i % 2 ? [signer] : [] } }, secondary: { requireTotp: false, requireExtJwtSigner: i % 2 ? null : signer } });
      const outcomes = new Set<string>();
      for (let round = 0; round < 3; round++) {
        const signer = await create(jwks());
        // The delete starts at a different point among the policy writes each round.
        const at = [0, 10, 30][round];
        const writes = Array.from({ length: 49 }, (_, i) => () => admin.call('createAuthPolicy', { body: policy(signer, i) }));
        const calls = [...writes.slice(0, at), () => admin.call('deleteExternalJwtSigner', { path: { id: signer } }), ...writes.slice(at)];
        const replies = await Promise.all(calls.map((call) => call()));
        const deleteReply = replies[at];
        const created = replies.filter((r, i) => i !== at && r.status === 201);
        for (const r of replies.filter((r, i) => i !== at && r.status !== 201)) expectError(r, 404, 'NOT_FOUND');
        if (deleteReply.status === 200) {
          outcomes.add('deleted');
          expect(created).toHaveLength(0);
        } else {
          outcomes.add('refused');
          expectError(deleteReply, 409, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
          expect(created.length).toBeGreaterThan(0);
        }
        // The store never holds a policy naming a signer that does not exist.
        const dangling = await selectRows(db(), sql`select count(*) as n from auth_policies p where not exists (select 1 from external_jwt_signers s where s.id = ${signer}) and (p.require_ext_jwt_signer = ${signer} or exists (select 1 from json_each(p.ext_jwt_allowed_signers) j where j.value = ${signer}))`, ['n']);
        expect(Number(dangling[0].n)).toBe(0);
        await Promise.all(created.map((r) => admin.ok('deleteAuthPolicy', { path: { id: (r.body.data as { id: string }).id } })));
        if (deleteReply.status !== 200) await admin.ok('deleteExternalJwtSigner', { path: { id: signer } });
      }
      expect(outcomes.size).toBeGreaterThan(0);
    });

    it('has the store refuse a referenced signer\'s delete and a policy naming a missing signer', async () => {
      const signer = await create(jwks());
      const policyId = uniqueName('raw-ap');
      await db().run(sql`insert into auth_policies (id, created_at, updated_at, name, ext_jwt_allowed_signers) values (${policyId}, 0, 0, ${policyId}, ${JSON.stringify([signer])})`);
      await expect(db().run(sql`delete from external_jwt_signers where id = ${signer}`)).rejects.toThrow();
      await expect(db().run(sql`update auth_policies set require_ext_jwt_signer = 'missing' where id = ${policyId}`)).rejects.toThrow();
      await expect(db().run(sql`insert into auth_policies (id, created_at, updated_at, name, ext_jwt_allowed_signers) values ('x', 0, 0, 'x', '["missing"]')`)).rejects.toThrow();
      await db().run(sql`delete from auth_policies where id = ${policyId}`);
      await db().run(sql`delete from external_jwt_signers where id = ${signer}`);
      expect((await admin.call('detailExternalJwtSigner', { path: { id: signer } })).status).toBe(404);
    });

    it('lists enabled signers anonymously on the client API, with public fields only', async () => {
      const tag = uniqueName('pub');
      const on = await create(jwks({ name: `${tag}-on`, clientId: 'browser', scopes: ['openid'], externalAuthUrl: 'https://idp.example.com/auth', kid: uniqueName('k') }));
      await create(jwks({ name: `${tag}-off`, enabled: false }));
      const list = expectConforms(await anonymous.call('listExternalJwtSigners', { query: { filter: `name contains "${tag}"` } }), 'listExternalJwtSigners', 'client');
      expect(list.body.data.map((s) => s.id)).toEqual([on]);
      const item = list.body.data[0] as Record<string, unknown>;
      expect(Object.keys(item).sort()).toEqual(['_links', 'audience', 'clientId', 'createdAt', 'externalAuthUrl', 'id', 'name', 'scopes', 'tags', 'targetToken', 'updatedAt']);
      expect(item).toMatchObject({ clientId: 'browser', scopes: ['openid'], externalAuthUrl: 'https://idp.example.com/auth', audience: 'ziti', targetToken: 'ACCESS' });
      const bare = (await anonymous.ok('listExternalJwtSigners', { query: { filter: `name = "${(await admin.ok('detailExternalJwtSigner', { path: { id: await create(jwks({ name: `${tag}-bare` })) } })).data.name}"` } })).data[0];
      expect(bare).toMatchObject({ scopes: null, clientId: null });
      // Private fields cannot be read out through a filter.
      expectError(await anonymous.call('listExternalJwtSigners', { query: { filter: 'issuer contains "h"' } }), 400, 'INVALID_FILTER');
      expectError(await admin.call('listExternalJwtSigners', { token: 'not-a-session' }), 401, 'UNAUTHORIZED');
    });
  });
};

export default signersSuite;
