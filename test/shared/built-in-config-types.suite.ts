import { beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { seedBuiltIns } from '../../src/bootstrap.js';
import { configTypes } from '../../src/db/schema/index.js';
import { BUILT_IN_CONFIG_TYPES } from '../../src/resources/config-types/builtins.js';
import earlierSchemas from '../fixtures/built-in-schemas-v1.json';
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
      // Given and forwarded together: the forwarded one needs its allowed set, the given one is not refused (as the controller does).
      { ...host, forwardProtocol: true, allowedProtocols: ['udp'], forwardAddressTranslations: [{ from: '10.0.0.0', to: '192.168.0.0', prefixLength: 16 }] },
      { ...host, portChecks: [{ interval: '5s', timeout: '1s', address: 'localhost:8080', actions: [{ trigger: 'fail', consecutiveEvents: 2, action: 'increase cost 100' }] }], httpChecks: [{ url: 'http://localhost/health', method: 'GET', expectStatus: 200, interval: '10s', timeout: '2s' }] },
    ],
    invalid: [
      [{ address: 'localhost', port: 1 }, '(root)'],
      [{ ...host, forwardPort: false }, '(root).forwardPort'],
      [{ forwardProtocol: true, address: 'localhost', port: 1 }, '(root)'],
      [{ ...host, listenOptions: { maxConnections: 0 } }, '(root).listenOptions.maxConnections'],
      [{ ...host, unknown: 1 }, '(root)'],
    ],
  },
  'host.v2': { valid: [{ terminators: [host, { ...host, port: 8081 }] }], invalid: [[{ terminators: [] }, '(root).terminators']] },
  'ziti-tunneler-client.v1': { valid: [{ hostname: 'app.ziti', port: 443 }], invalid: [[{ hostname: 'app.ziti' }, '(root)']] },
  'ziti-tunneler-server.v1': { valid: [{ hostname: 'localhost', port: 22, protocol: 'tcp' }], invalid: [
      [{ hostname: 'localhost', port: 22, protocol: 'icmp' }, '(root).protocol'],
      [{ hostname: 'localhost', port: 22, protocol: null }, '(root).protocol'],
    ] },
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

    it('have the shape clients read: optional lists without a type of their own, every $ref defined in the document', async () => {
      for (const id of Object.values(IDS)) {
        const schema = (await admin.ok('detailConfigType', { path: { id } })).data.schema as Record<string, any>;
        const refs = JSON.stringify(schema).match(/"\$ref":"#\/definitions\/[^"]+"/g) ?? [];
        for (const r of refs) expect(schema.definitions, `${id} ${r}`).toHaveProperty(r.slice('"$ref":"#/definitions/'.length, -1));
      }
      const intercept = (await admin.ok('detailConfigType', { path: { id: IDS['intercept.v1'] } })).data.schema as Record<string, any>;
      // The Admin Console's config editor fills a list whose own type is 'array' with [] and then fails minItems.
      expect(intercept.properties.allowedSourceAddresses).not.toHaveProperty('type');
      expect(intercept.properties.allowedSourceAddresses.allOf[0]).toEqual({ $ref: '#/definitions/inhabitedSet' });
      const host1 = (await admin.ok('detailConfigType', { path: { id: IDS['host.v1'] } })).data.schema as Record<string, any>;
      expect(host1.allOf.map((c: Record<string, any>) => Object.keys(c).sort())).toEqual([['else', 'if', 'then'], ['else', 'if', 'then'], ['else', 'if', 'then']]);
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

    it("replace a schema an earlier release seeded on the next start, but never one an admin changed", async () => {
      const [seeded, edited] = [IDS['intercept.v1'], IDS['ziti-tunneler-client.v1']];
      const earlier = earlierSchemas as Record<string, string>;
      const current = (id: string) => JSON.stringify(BUILT_IN_CONFIG_TYPES.find((t) => t.id === id)!.schema);
      const adminSchema = JSON.stringify({ type: 'object', properties: { hostname: { type: 'string' } } });
      await db().update(configTypes).set({ schema: earlier[seeded] }).where(eq(configTypes.id, seeded));
      await db().update(configTypes).set({ schema: adminSchema }).where(eq(configTypes.id, edited));
      await Promise.all(Array.from({ length: 10 }, () => seedBuiltIns(db(), Date.now())));
      const rows = await db().select({ id: configTypes.id, schema: configTypes.schema }).from(configTypes).where(inArray(configTypes.id, [seeded, edited]));
      const by = Object.fromEntries(rows.map((r) => [r.id, r.schema]));
      expect(by[seeded]).toBe(current(seeded));
      expect(by[edited]).toBe(adminSchema);
      await db().update(configTypes).set({ schema: current(edited) }).where(eq(configTypes.id, edited));
    });

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
