import { defineEntity } from '../../crud/entity.js';
import { commonFields } from '../../crud/list-query.js';
import { configs } from '../../db/schema/index.js';
import type { ConfigCreate } from '../../generated/management-types.js';
import { shortId } from '../../lib/ids.js';

export type ConfigRow = typeof configs.$inferSelect;

/** Configs (reference model-and-policies §5.2). The type is set on create by the service and never changes. */
export const configEntity = defineEntity<ConfigCreate>()({
  entity: 'config',
  collection: 'configs',
  table: configs,
  fields: { ...commonFields(configs), name: { type: 'string', sql: configs.name }, type: { type: 'string', sql: configs.configTypeId } },
  props: {
    name: { column: 'name', kind: 'name' },
    data: { column: 'data', kind: 'object' },
  },
  unique: [{ column: 'name', field: 'name' }],
  newId: shortId,
});
