import { defineEntity } from '../../crud/entity.js';
import { commonFields } from '../../crud/list-query.js';
import { transitRouters } from '../../db/schema/index.js';
import type { RouterCreate } from '../../generated/management-types.js';
import { shortId } from '../../lib/ids.js';

export type TransitRouterRow = typeof transitRouters.$inferSelect;

/** Transit routers (§9.3); `/routers` is the same resource under another name. */
export const transitRouterEntity = defineEntity<RouterCreate>()({
  entity: 'router',
  collection: 'transit-routers',
  table: transitRouters,
  fields: {
    ...commonFields(transitRouters),
    name: { type: 'string', sql: transitRouters.name },
    cost: { type: 'number', sql: transitRouters.cost },
    noTraversal: { type: 'bool', sql: transitRouters.noTraversal },
    disabled: { type: 'bool', sql: transitRouters.disabled },
    isVerified: { type: 'bool', sql: transitRouters.isVerified },
    fingerprint: { type: 'string', sql: transitRouters.fingerprint },
  },
  props: {
    name: { column: 'name', kind: 'name' },
    cost: { column: 'cost', kind: 'int' },
    noTraversal: { column: 'noTraversal', kind: 'bool' },
    disabled: { column: 'disabled', kind: 'bool' },
  },
  unique: [{ column: 'name', field: 'name' }],
  newId: shortId,
});
