import { defineEntity } from '../../crud/entity.js';
import { commonFields } from '../../crud/list-query.js';
import { allRouters } from '../../db/router-list.js';
import { transitRouters } from '../../db/schema/index.js';
import type { RouterCreate } from '../../generated/management-types.js';
import { shortId } from '../../lib/ids.js';

/** A router as `/transit-routers` reads it: a transit router, or an edge router (`isBase`). */
export type ListedRouterRow = typeof allRouters.$inferSelect;

/** The public fields (§1.6), the same on the table and on the view. */
function routerFields(t: typeof transitRouters | typeof allRouters) {
  return {
    ...commonFields(t),
    name: { type: 'string', sql: t.name },
    cost: { type: 'number', sql: t.cost },
    noTraversal: { type: 'bool', sql: t.noTraversal },
    disabled: { type: 'bool', sql: t.disabled },
    isVerified: { type: 'bool', sql: t.isVerified },
    fingerprint: { type: 'string', sql: t.fingerprint },
  } as const;
}

/** Transit routers (§9.3), as written; `/routers` is the same resource under another name. */
export const transitRouterEntity = defineEntity<RouterCreate>()({
  entity: 'router',
  collection: 'transit-routers',
  table: transitRouters,
  fields: routerFields(transitRouters),
  props: {
    name: { column: 'name', kind: 'name' },
    cost: { column: 'cost', kind: 'int' },
    noTraversal: { column: 'noTraversal', kind: 'bool' },
    disabled: { column: 'disabled', kind: 'bool' },
  },
  unique: [{ column: 'name', field: 'name' }],
  newId: shortId,
});

/**
 * Routers as `/transit-routers` lists and shows them: every router, edge routers included, as the
 * controller's transit-router store extends its router store and so lists every router (§9.3).
 */
export const listedRouterEntity = defineEntity<RouterCreate>()({
  entity: 'router',
  collection: 'transit-routers',
  table: allRouters,
  fields: routerFields(allRouters),
  props: {},
  newId: shortId,
});
