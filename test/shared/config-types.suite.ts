import { beforeAll, describe, expect, it } from 'vitest';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ManagementOperations } from '../helpers/typed-api.js';
import { expectError, expectFieldError, expectNotFound, uniqueName } from './identities.suite.js';
import type { Suite } from './suite.js';

const schema = { type: 'object', properties: { hostname: { type: 'string' }, port: { type: 'integer', minimum: 0, maximum: 65535 } }, required: ['hostname', 'port'], additionalProperties: false };

/** Management `/config-types` (reference model-and-policies §5.1, §2.7): Node and workerd. */
const configTypesSuite: Suite = ({ client }) => {
  let token = '';
  beforeAll(async () => {
    token = await client().login();
  });
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => token);
  const create = async (body: Record<string, unknown>) => (await admin.ok('createConfigType', { body: { name: uniqueName('ct'), ...body } })).data!.id!;

  describe('config types', () => {
    it('creates, details and lists a config type with its schema', async () => {
      const name = uniqueName('ct');
      const created = expectConforms(await admin.call('createConfigType', { body: { name, schema } }), 'createConfigType');
      expect(created.status).toBe(201);
      const id = created.body.data!.id!;
      expect(created.body.data!._links!.self.href).toBe(`./config-types/${id}`);
      const detail = expectConforms(await admin.call('detailConfigType', { path: { id } }), 'detailConfigType');
      expect(detail.body.data).toMatchObject({ id, name, schema });
      const list = expectConforms(await admin.call('listConfigTypes', { query: { filter: `name = "${name}"` } }), 'listConfigTypes');
      expect(list.body.data.map((t) => t.id)).toEqual([id]);
      expect(list.body.meta.pagination).toEqual({ limit: 10, offset: 0, totalCount: 1 });
    });

    it('leaves the schema alone on PATCH with {} or null, replaces it whole with a new one, and PUT without it clears it', async () => {
      const id = await create({ schema });
      for (const body of [{ schema: {} }, { schema: null }, { tags: { a: 'b' } }]) {
        expect((await admin.call('patchConfigType', { path: { id }, body })).status).toBe(200);
        expect((await admin.ok('detailConfigType', { path: { id } })).data.schema).toEqual(schema);
      }
      const other = { type: 'object', properties: { a: { type: 'array', items: { type: 'object', properties: { b: { const: 1 } } } } } };
      expect((await admin.call('patchConfigType', { path: { id }, body: { schema: other } })).status).toBe(200);
      expect((await admin.ok('detailConfigType', { path: { id } })).data.schema).toEqual(other);
      const name = uniqueName('ct');
      expect((await admin.call('updateConfigType', { path: { id }, body: { name } })).status).toBe(200);
      expect((await admin.ok('detailConfigType', { path: { id } })).data).toMatchObject({ name, schema: null });
    });

    it('renders a type without a schema (absent, null or {}) with "schema": null, as controller v1.6.2 does', async () => {
      for (const body of [{}, { schema: null }, { schema: {} }]) {
        const name = uniqueName('ct');
        const id = await create({ name, ...body });
        const detail = expectConforms(await admin.call('detailConfigType', { path: { id } }), 'detailConfigType');
        expect(detail.body.data, JSON.stringify(body)).toHaveProperty('schema', null);
        const list = expectConforms(await admin.call('listConfigTypes', { query: { filter: `name = "${name}"` } }), 'listConfigTypes');
        expect(list.body.data.map((t) => [t.id, t.schema]), JSON.stringify(body)).toEqual([[id, null]]);
      }
      // With a schema: rendered as given, on the list as on the detail.
      const name = uniqueName('ct');
      const id = await create({ name, schema });
      expect((await admin.ok('detailConfigType', { path: { id } })).data.schema).toEqual(schema);
      expect((await admin.ok('listConfigTypes', { query: { filter: `name = "${name}"` } })).data.map((t) => t.schema)).toEqual([schema]);
    });

    it('refuses a schema whose root type is not object, a non-object schema, a missing or reserved name; nothing is written', async () => {
      const name = uniqueName('ct');
      expectFieldError(await admin.call('createConfigType', { body: { name, schema: { type: 'string' } } }), 400, 'schema', 'invalid config type schema, root type must be object');
      expectFieldError(await admin.call('createConfigType', { body: { name, schema: [1] as never } }), 400, 'schema');
      expectFieldError(await admin.call('createConfigType', { body: { name: '' } }), 400, 'name', 'name is required');
      expectFieldError(await admin.call('createConfigType', { body: { name: 'all' } }), 400, 'name', 'all is a keyword and may not be used as a config type name');
      expect((await admin.ok('listConfigTypes', { query: { filter: `name = "${name}"` } })).meta.pagination!.totalCount).toBe(0);
    });

    it('keeps names unique, also under concurrent creates', async () => {
      const name = uniqueName('ct');
      const replies = await Promise.all(Array.from({ length: 20 }, () => admin.call('createConfigType', { body: { name } })));
      expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
      for (const r of replies.filter((r) => r.status !== 201)) expect(r.body.error!.cause).toMatchObject({ field: 'name', reason: 'name must be unique', value: name });
    });

    it('deletes, then answers 404 for the id', async () => {
      const id = await create({});
      expect((await admin.call('deleteConfigType', { path: { id } })).status).toBe(200);
      expectNotFound(await admin.call('detailConfigType', { path: { id } }), 'configType', id);
      expectError(await admin.call('deleteConfigType', { path: { id } }), 404, 'NOT_FOUND');
    });

    it('is refused to anonymous callers', async () => {
      expectError(await admin.call('listConfigTypes', { token: 'not-a-session' }), 401, 'UNAUTHORIZED');
    });
  });
};

export default configTypesSuite;
