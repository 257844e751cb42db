import { defineEntity } from '../../crud/entity.js';
import { commonFields, constantField, jsonArraySet } from '../../crud/list-query.js';
import { edgeRouters } from '../../db/schema/index.js';
import type { EdgeRouterCreate } from '../../generated/management-types.js';
import { shortId } from '../../lib/ids.js';

export type EdgeRouterRow = typeof edgeRouters.$inferSelect;

/** Edge routers (reference model-and-policies §9.1); live state is never stored. */
export const edgeRouterEntity = defineEntity<EdgeRouterCreate>()({
  entity: 'edgeRouter',
  collection: 'edge-routers',
  table: edgeRouters,
  fields: {
    ...commonFields(edgeRouters),
    name: { type: 'string', sql: edgeRouters.name },
    roleAttributes: jsonArraySet(edgeRouters.roleAttributes),
    cost: { type: 'number', sql: edgeRouters.cost },
    noTraversal: { type: 'bool', sql: edgeRouters.noTraversal },
    disabled: { type: 'bool', sql: edgeRouters.disabled },
    isTunnelerEnabled: { type: 'bool', sql: edgeRouters.isTunnelerEnabled },
    isVerified: { type: 'bool', sql: edgeRouters.isVerified },
    fingerprint: { type: 'string', sql: edgeRouters.fingerprint },
    // Live state in the controller; routers never connect here (docs/api-conventions.md), so always false.
    connected: constantField('bool', false),
    online: constantField('bool', false),
  },
  props: {
    name: { column: 'name', kind: 'name' },
    roleAttributes: { column: 'roleAttributes', kind: 'attributes' },
    cost: { column: 'cost', kind: 'int' },
    noTraversal: { column: 'noTraversal', kind: 'bool' },
    disabled: { column: 'disabled', kind: 'bool' },
    isTunnelerEnabled: { column: 'isTunnelerEnabled', kind: 'bool' },
    appData: { column: 'appData', kind: 'map' },
  },
  unique: [{ column: 'name', field: 'name' }],
  newId: shortId,
});
