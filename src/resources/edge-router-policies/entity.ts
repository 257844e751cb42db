import { defineEntity } from '../../crud/entity.js';
import { commonFields, jsonArraySet } from '../../crud/list-query.js';
import { edgeRouterPolicies } from '../../db/schema/index.js';
import type { EdgeRouterPolicyCreate } from '../../generated/management-types.js';
import { entityId } from '../../lib/ids.js';

export type EdgeRouterPolicyRow = typeof edgeRouterPolicies.$inferSelect;

/** Edge router policies (§3.1–§3.3); system ones (tunneler-enabled routers) refuse update and delete. */
export const edgeRouterPolicyEntity = defineEntity<EdgeRouterPolicyCreate>()({
  entity: 'edgeRouterPolicy',
  collection: 'edge-router-policies',
  table: edgeRouterPolicies,
  fields: {
    ...commonFields(edgeRouterPolicies),
    name: { type: 'string', sql: edgeRouterPolicies.name },
    semantic: { type: 'string', sql: edgeRouterPolicies.semantic },
    identityRoles: jsonArraySet(edgeRouterPolicies.identityRoles),
    edgeRouterRoles: jsonArraySet(edgeRouterPolicies.edgeRouterRoles),
  },
  props: {
    name: { column: 'name', kind: 'name' },
    semantic: { column: 'semantic', kind: 'string' },
    identityRoles: { column: 'identityRoles', kind: 'json', zero: [] },
    edgeRouterRoles: { column: 'edgeRouterRoles', kind: 'json', zero: [] },
  },
  unique: [{ column: 'name', field: 'name' }],
  newId: entityId,
  protectSystem: { update: true, delete: true },
});
