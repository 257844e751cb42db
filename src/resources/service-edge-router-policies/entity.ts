import { defineEntity } from '../../crud/entity.js';
import { commonFields, jsonArraySet } from '../../crud/list-query.js';
import { serviceEdgeRouterPolicies } from '../../db/schema/index.js';
import type { ServiceEdgeRouterPolicyCreate } from '../../generated/management-types.js';
import { entityId } from '../../lib/ids.js';

export type ServiceEdgeRouterPolicyRow = typeof serviceEdgeRouterPolicies.$inferSelect;

/** Service edge router policies (§3.1–§3.3). */
export const serviceEdgeRouterPolicyEntity = defineEntity<ServiceEdgeRouterPolicyCreate>()({
  entity: 'serviceEdgeRouterPolicy',
  collection: 'service-edge-router-policies',
  table: serviceEdgeRouterPolicies,
  fields: {
    ...commonFields(serviceEdgeRouterPolicies),
    name: { type: 'string', sql: serviceEdgeRouterPolicies.name },
    semantic: { type: 'string', sql: serviceEdgeRouterPolicies.semantic },
    serviceRoles: jsonArraySet(serviceEdgeRouterPolicies.serviceRoles),
    edgeRouterRoles: jsonArraySet(serviceEdgeRouterPolicies.edgeRouterRoles),
  },
  props: {
    name: { column: 'name', kind: 'name' },
    semantic: { column: 'semantic', kind: 'string' },
    serviceRoles: { column: 'serviceRoles', kind: 'json', zero: [] },
    edgeRouterRoles: { column: 'edgeRouterRoles', kind: 'json', zero: [] },
  },
  unique: [{ column: 'name', field: 'name' }],
  newId: entityId,
});
