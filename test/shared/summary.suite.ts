import { beforeAll, describe, expect, it } from 'vitest';
import { operationSlots } from '../../src/db/schema/index.js';
import { CLIENT } from '../helpers/client.js';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ManagementOperations } from '../helpers/typed-api.js';
import { expectError, uniqueName } from './identities.suite.js';
import type { Suite } from './suite.js';

/** Every key of reference model-and-policies §10.4. */
const SUMMARY_KEYS = [
  'apiSessions',
  'apiSessionCertificates',
  'authPolicies',
  'authenticators',
  'cas',
  'configTypes',
  'configs',
  'controllers',
  'edgeRouterPolicies',
  'enrollments',
  'eventualEvents',
  'externalJwtSigners',
  'identities',
  'identityTypes',
  'mfas',
  'postureCheckTypes',
  'postureChecks',
  'revocations',
  'routers',
  'routers.edge',
  'serviceEdgeRouterPolicies',
  'servicePolicies',
  'services',
  'services.edge',
  'sessions',
  'terminators',
];

const SUMMARY_PASSWORD = 'summary-pass-1';

/** `GET /summary` (§10.4) and `POST /database/snapshot` (§10.5). */
const summarySuite: Suite = ({ client, db, runtime }) => {
  let token = '';
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => token);
  beforeAll(async () => {
    token = await client().login();
  });
  const id = (reply: { data?: { id?: string | null } | null }) => reply.data!.id!;

  describe('summary', () => {
    it('has one count per kind of record, 0 for the kinds this controller does not store', async () => {
      const reply = expectConforms(await admin.call('listSummary'), 'listSummary');
      expect(Object.keys(reply.body.data).sort()).toEqual([...SUMMARY_KEYS].sort());
      for (const key of ['controllers', 'eventualEvents', 'revocations']) expect(reply.body.data[key], key).toBe(0);
      // The built-in posture check types are fixed content.
      expect(reply.body.data.postureCheckTypes).toBe(5);
      // Built-in records count: the default admin and auth policy, both identity types, the built-in config types.
      expect(reply.body.data.identities).toBeGreaterThanOrEqual(1);
      expect(reply.body.data.identityTypes).toBe(2);
      expect(reply.body.data.authPolicies).toBeGreaterThanOrEqual(1);
      expect(reply.body.data.configTypes).toBeGreaterThanOrEqual(5);
      // `/transit-routers` lists every router, edge routers included, as `routers` counts them.
      expect(reply.body.data.routers).toBe((await admin.ok('listTransitRouters', { query: { limit: 1 } })).meta.pagination!.totalCount);
      expect(reply.body.data.services).toBe(reply.body.data['services.edge']);
    });

    it('counts exactly what was created', async () => {
      const before = (await admin.ok('listSummary')).data;
      const user = id(await admin.ok('createIdentity', { body: { name: uniqueName('sum-user'), isAdmin: false, type: 'User' } }));
      const username = uniqueName('sum-login');
      await admin.ok('createAuthenticator', { body: { method: 'updb', identityId: user, username, password: SUMMARY_PASSWORD } });
      await admin.ok('createIdentity', { body: { name: uniqueName('sum-device'), isAdmin: false, type: 'Device', enrollment: { ott: true } } });
      const userToken = await client().login(username, SUMMARY_PASSWORD, CLIENT);
      const type = id(await admin.ok('createConfigType', { body: { name: uniqueName('sum-type') } }));
      await admin.ok('createConfig', { body: { name: uniqueName('sum-cfg'), configTypeId: type, data: { a: 1 } } });
      const service = id(await admin.ok('createService', { body: { name: uniqueName('sum-svc'), encryptionRequired: true } }));
      const router = id(await admin.ok('createEdgeRouter', { body: { name: uniqueName('sum-er') } }));
      await admin.ok('createTransitRouter', { body: { name: uniqueName('sum-tr') } });
      await admin.ok('createTerminator', { body: { service, router, address: 'tcp:localhost:80', binding: 'transport' } });
      await admin.ok('createServicePolicy', { body: { name: uniqueName('sum-sp'), type: 'Dial', semantic: 'AllOf', identityRoles: [`@${user}`], serviceRoles: [`@${service}`] } });
      await admin.ok('createEdgeRouterPolicy', { body: { name: uniqueName('sum-erp'), semantic: 'AllOf', identityRoles: [`@${user}`], edgeRouterRoles: [`@${router}`] } });
      await admin.ok('createServiceEdgeRouterPolicy', { body: { name: uniqueName('sum-serp'), semantic: 'AllOf', serviceRoles: [`@${service}`], edgeRouterRoles: [`@${router}`] } });
      await admin.ok('createPostureCheck', { body: { name: uniqueName('sum-pc'), typeId: 'DOMAIN', domains: ['example.org'] } as never });
      expect((await client().request(`${CLIENT}/sessions`, { token: userToken, body: { serviceId: service } })).status).toBe(201);

      const after = expectConforms(await admin.call('listSummary'), 'listSummary').body.data;
      const delta = Object.fromEntries(SUMMARY_KEYS.map((k) => [k, after[k] - before[k]]));
      expect(delta).toEqual({
        ...Object.fromEntries(SUMMARY_KEYS.map((k) => [k, 0])),
        identities: 2,
        authenticators: 1,
        // The device's ott, and the erott and trott every new edge and transit router starts with.
        enrollments: 3,
        apiSessions: 1,
        configTypes: 1,
        configs: 1,
        services: 1,
        'services.edge': 1,
        routers: 2,
        'routers.edge': 1,
        terminators: 1,
        servicePolicies: 1,
        edgeRouterPolicies: 1,
        serviceEdgeRouterPolicies: 1,
        postureChecks: 1,
        sessions: 1,
      });
    });

    it('is for admins only', async () => {
      const name = uniqueName('sum-plain');
      const plain = id(await admin.ok('createIdentity', { body: { name, isAdmin: false, type: 'User' } }));
      const username = uniqueName('sum-plain-login');
      await admin.ok('createAuthenticator', { body: { method: 'updb', identityId: plain, username, password: SUMMARY_PASSWORD } });
      const userToken = await client().login(username, SUMMARY_PASSWORD);
      expectError(await admin.call('listSummary', { token: userToken }), 401, 'UNAUTHORIZED');
      expectError(await admin.call('createDatabaseSnapshot', { token: userToken }), 401, 'UNAUTHORIZED');
      expectError(await admin.call('listSummary', { token: 'not-a-session' }), 401, 'UNAUTHORIZED');
    });
  });

  describe('snapshots', () => {
    it('takes what the store offers, at most once a minute', async () => {
      // Other suites (the bearer permission matrix calls every operation) may have taken this minute's slot.
      await db().delete(operationSlots);
      const first = await admin.call('createDatabaseSnapshot');
      const taken = first.body.data as { path?: string; bookmark?: string; restore?: string };
      if (runtime === 'node') {
        // The embedded file: a copy next to it (its content is checked in test/node/snapshot.test.ts).
        expectConforms(first, 'createDatabaseSnapshot');
        expect(taken.path).toMatch(/\.snapshot-\d{8}-\d{6}\.db$/);
      } else if (first.status === 200) {
        // D1: a Time Travel bookmark of this moment, and how to restore to it.
        expectConforms(first, 'createDatabaseSnapshot');
        expect(taken.bookmark).toEqual(expect.any(String));
        expect(taken.restore).toContain(taken.bookmark);
      } else {
        // Never a silent success: the documented 409 with what the platform offers.
        expectError(first, 409, 'SNAPSHOT_NOT_SUPPORTED');
        expect(first.body.error?.cause?.message).toMatch(/time-travel restore/);
      }
      const second = await admin.call('createDatabaseSnapshot');
      if (first.status === 200) {
        expectError(second, 429, 'RATE_LIMITED');
      } else {
        // Nothing was taken, so nothing is rate limited: the same answer again.
        expectError(second, 409, 'SNAPSHOT_NOT_SUPPORTED');
      }
    });
  });
};

export default summarySuite;
export const secrets = [SUMMARY_PASSWORD];
