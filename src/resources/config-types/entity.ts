import { defineEntity } from '../../crud/entity.js';
import { commonFields } from '../../crud/list-query.js';
import { configTypes } from '../../db/schema/index.js';
import type { ConfigTypeCreate } from '../../generated/management-types.js';
import { shortId } from '../../lib/ids.js';

export type ConfigTypeRow = typeof configTypes.$inferSelect;

/** Config types (reference model-and-policies §5.1): the schema is a nested object, replaced as a whole. */
export const configTypeEntity = defineEntity<ConfigTypeCreate>()({
  entity: 'configType',
  collection: 'config-types',
  table: configTypes,
  fields: { ...commonFields(configTypes), name: { type: 'string', sql: configTypes.name }, schema: { type: 'string', sql: configTypes.schema } },
  props: {
    name: { column: 'name', kind: 'name' },
    schema: { column: 'schema', kind: 'object' },
  },
  unique: [{ column: 'name', field: 'name' }],
  newId: shortId,
});
