import { beforeAll, describe, expect, it } from 'vitest';
import { inArray } from 'drizzle-orm';
import { seedBuiltIns } from '../../src/bootstrap.js';
import { configTypes } from '../../src/db/schema/index.js';
import { BUILT_IN_CONFIG_TYPES } from '../../src/resources/config-types/builtins.js';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ManagementOperations } from '../helpers/typed-api.js';
import { expectFieldError, uniqueName } from './identities.suite.js';
import type { Suite } from './suite.js';

const IDS: Record<string, string> = {
  'intercept.v1': 'g7cIWbcGg',
  'host.v1': 'NH5p4FpGR',
  'host.v2': 'host.v2',
  'ziti-tunneler-client.v1': 'f2dd2df0-9c04-4b84-a91e-71437ac229f1',
  'ziti-tunneler-server.v1': 'cea49285-6c07-42cf-9f52-09a9b115c783',
};

const host = { protocol: 'tcp', address: 'localhost', port: 8080 };
/** Per type: data a tunneler would send, and data the schema must refuse (with the field named). */
const SAMPLES: Record<string, { valid: Record<string, unknown>[]; invalid: [Record<string, unknown>, string][] }> = {
  'intercept.v1': {
    valid: [{ protocols: ['tcp', 'udp'], addresses: ['app.ziti', '10.0.0.0/24', '*.internal'], portRanges: [{ low: 80, high: 443 }], dialOptions: { identity: 'x', connectTimeoutSeconds: 5 } }],
    invalid: [
      [{ protocols: [], addresses: ['a'], portRanges: [{ low: 1, high: 2 }] }, '(root).protocols'],
      [{ protocols: ['icmp'], addresses: ['a'], portRanges: [{ low: 1, high: 2 }] }, '(root).protocols.0'],
      [{ protocols: ['tcp'], addresses: ['a'], portRanges: [{ low: 1, high: 70000 }] }, '(root).portRanges.0.high'],
    ],
  },
  'host.v1': {
    valid: [
      host,
      { forwardProtocol: true, allowedProtocols: ['tcp'], forwardAddress: true, allowedAddresses: ['10.0.0.0/8'], forwardPort: true, allowedPortRanges: [{ low: 1, high: 1024 }], listenOptions: { connectTimeout: '5s', maxConnections: 3, precedence: 'required' } },
      { ...host, portChecks: [{ interval: '5s', timeout: '1s', address: 'localhost:8080', actions: [{ trigger: 'fail', consecutiveEvents: 2, action: 'increase cost 100' }] }], httpChecks: [{ url: 'http://localhost/health', method: 'GET', expectStatus: 200, interval: '10s', timeout: '2s' }] },
    ],
    invalid: [
      [{ address: 'localhost', port: 1 }, '(root)'],
      [{ ...host, forwardProtocol: true, allowedProtocols: ['udp'] }, '(root)'],
      [{ ...host, listenOptions: { maxConnections: 0 } }, '(root).listenOptions.maxConnections'],
      [{ ...host, unknown: 1 }, '(root)'],
    ],
  },
  'host.v2': { valid: [{ terminators: [host, { ...host, port: 8081 }] }], invalid: [[{ terminators: [] }, '(root).terminators']] },
  'ziti-tunneler-client.v1': { valid: [{ hostname: 'app.ziti', port: 443 }], invalid: [[{ hostname: 'app.ziti' }, '(root)']] },
  'ziti-tunneler-server.v1': { valid: [{ hostname: 'localhost', port: 22, protocol: 'tcp' }], invalid: [[{ hostname: 'localhost', port: 22, protocol: 'icmp' }, '(root).protocol']] },
};

/** The five config types of a fresh store (reference model-and-policies §5.4). */
const builtInConfigTypesSuite: Suite = ({ client, db }) => {
  let token = '';
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => token);
  beforeAll(async () => {
    token = await client().login();
  });

  describe('built-in config types', () => {
    it('exist on a fresh store with their fixed ids and object schemas', async () => {
      for (const [name, id] of Object.entries(IDS)) {
        const reply = expectConforms(await admin.call('detailConfigType', { path: { id } }), 'detailConfigType');
        expect(reply.body.data).toMatchObject({ id, name });
        expect(reply.body.data.schema).toMatchObject({ type: 'object' });
      }
    });

    for (const [name, samples] of Object.entries(SAMPLES)) {
      it(`${name}: accepts what tunnelers send and refuses malformed data with the failing location`, async () => {
        for (const data of samples.valid) {
          const reply = await admin.call('createConfig', { body: { name: uniqueName('builtin'), configTypeId: IDS[name], data } });
          expect(reply.status, reply.text).toBe(201);
        }
        for (const [data, field] of samples.invalid) expectFieldError(await admin.call('createConfig', { body: { name: uniqueName('builtin'), configTypeId: IDS[name], data } }), 400, field);
      });
    }

    it('are inserted once, whatever the number of concurrent first starts', async () => {
      // Those no config uses are removed, then 50 starts seed at once: each type exists exactly once.
      const unused = [];
      for (const t of BUILT_IN_CONFIG_TYPES) if ((await admin.ok('listConfigsForConfigType', { path: { id: t.id } })).data.length === 0) unused.push(t.id);
      if (unused.length > 0) await db().delete(configTypes).where(inArray(configTypes.id, unused));
      await Promise.all(Array.from({ length: 50 }, () => seedBuiltIns(db(), Date.now())));
      const rows = await db().select().from(configTypes).where(inArray(configTypes.name, Object.keys(IDS)));
      expect(rows.map((r) => [r.name, r.id]).sort()).toEqual(Object.entries(IDS).sort());
    });
  });
};

export default builtInConfigTypesSuite;
