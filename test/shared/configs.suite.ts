import { beforeAll, describe, expect, it } from 'vitest';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ManagementOperations } from '../helpers/typed-api.js';
import { expectError, expectFieldError, expectNotFound, uniqueName } from './identities.suite.js';
import type { Suite } from './suite.js';

const schema = {
  type: 'object',
  properties: { hostname: { type: 'string' }, port: { type: 'integer', minimum: 0, maximum: 65535 }, ranges: { type: 'array', items: { type: 'object', properties: { low: { type: 'integer' } } } } },
  required: ['hostname', 'port'],
  additionalProperties: false,
};

/** Management `/configs` (reference model-and-policies §5.2): data checked against the type's schema on every write. */
const configsSuite: Suite = ({ client }) => {
  let token = '';
  let typeId = '';
  let freeTypeId = '';
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => token);
  beforeAll(async () => {
    token = await client().login();
    typeId = (await admin.ok('createConfigType', { body: { name: uniqueName('ct'), schema } })).data!.id!;
    freeTypeId = (await admin.ok('createConfigType', { body: { name: uniqueName('ct') } })).data!.id!;
  });
  const create = (body: Record<string, unknown>) => admin.call('createConfig', { body: { name: uniqueName('cfg'), configTypeId: typeId, data: { hostname: 'h', port: 22 }, ...body } });

  describe('configs', () => {
    it('creates a config valid for its type and shows it with its type, keeping integers integral', async () => {
      const created = expectConforms(await create({ data: { hostname: 'db.internal', port: 5432, ranges: [{ low: 1 }] } }), 'createConfig');
      const id = created.body.data!.id!;
      const detail = expectConforms(await admin.call('detailConfig', { path: { id } }), 'detailConfig');
      expect(detail.body.data).toMatchObject({ id, configTypeId: typeId, data: { hostname: 'db.internal', port: 5432, ranges: [{ low: 1 }] } });
      expect(detail.body.data.configType).toMatchObject({ id: typeId, entity: 'config-types' });
      expect(detail.text).toContain('"port":5432');
      const related = expectConforms(await admin.call('listConfigsForConfigType', { path: { id: typeId }, query: { filter: `id = "${id}"` } }), 'listConfigsForConfigType');
      expect(related.body.data.map((c) => c.id)).toEqual([id]);
    });

    it('refuses data that fails the schema with the first problem as the cause, on create, PUT and PATCH; nothing changes', async () => {
      const name = uniqueName('cfg');
      expectFieldError(await create({ name, data: { port: 22 } }), 400, '(root)', /hostname/);
      expectFieldError(await create({ name, data: { hostname: 'h', port: 70000 } }), 400, '(root).port', /65535/);
      expectFieldError(await create({ name, data: { hostname: 'h', port: 1, ranges: [{ low: 'x' }] } }), 400, '(root).ranges.0.low');
      expectFieldError(await create({ name, data: { hostname: 'h', port: 1, extra: true } }), 400, '(root)');
      expect((await admin.ok('listConfigs', { query: { filter: `name = "${name}"` } })).meta.pagination!.totalCount).toBe(0);

      const id = (await create({})).body.data!.id!;
      expectFieldError(await admin.call('patchConfig', { path: { id }, body: { data: { hostname: 'h' } } }), 400, '(root)', /port/);
      expectFieldError(await admin.call('updateConfig', { path: { id }, body: { name: uniqueName('cfg'), data: { port: 1 } } }), 400, '(root)', /hostname/);
      expect((await admin.ok('detailConfig', { path: { id } })).data.data).toEqual({ hostname: 'h', port: 22 });
    });

    it('accepts any object for a type without a schema, and never changes the type', async () => {
      const id = (await create({ configTypeId: freeTypeId, data: { anything: { nested: [1, 2] } } })).body.data!.id!;
      expect((await admin.call('patchConfig', { path: { id }, body: { configTypeId: typeId, data: { other: 1 } } as never })).status).toBe(200);
      expect((await admin.ok('detailConfig', { path: { id } })).data).toMatchObject({ configTypeId: freeTypeId, data: { other: 1 } });
    });

    it('refuses an unknown config type and a non-object data', async () => {
      expectFieldError(await create({ configTypeId: 'no-such-type' }), 400, 'type', 'invalid config type');
      expectFieldError(await create({ data: [1] }), 400, 'data');
    });

    it('keeps a config type with configs from being deleted (409), and deletes configs', async () => {
      const type = (await admin.ok('createConfigType', { body: { name: uniqueName('ct') } })).data!.id!;
      const id = (await create({ configTypeId: type, data: {} })).body.data!.id!;
      const refused = expectError(await admin.call('deleteConfigType', { path: { id: type } }), 409, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
      expect(refused.body.error.cause).toMatchObject({ field: 'configTypeId' });
      expect((await admin.call('deleteConfig', { path: { id } })).status).toBe(200);
      expectNotFound(await admin.call('detailConfig', { path: { id } }), 'config', id);
      expect((await admin.call('deleteConfigType', { path: { id: type } })).status).toBe(200);
    });
  });
};

export default configsSuite;
