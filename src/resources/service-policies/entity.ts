import { defineEntity } from '../../crud/entity.js';
import { commonFields, jsonArraySet, linkedSet } from '../../crud/list-query.js';
import { entitiesOfPolicy } from '../../policy/repo.js';
import { policyTypeNumber } from './repo.js';
import { servicePolicies } from '../../db/schema/index.js';
import type { ServicePolicyCreate } from '../../generated/management-types.js';
import { entityId } from '../../lib/ids.js';

export type ServicePolicyRow = typeof servicePolicies.$inferSelect;

/** Service policies (Dial/Bind, §3.1–§3.3); role lists are validated and linked by src/policy/policies.ts. */
export const servicePolicyEntity = defineEntity<ServicePolicyCreate>()({
  entity: 'servicePolicy',
  collection: 'service-policies',
  table: servicePolicies,
  fields: {
    ...commonFields(servicePolicies),
    name: { type: 'string', sql: servicePolicies.name },
    // A number in the controller's filters (`type = 1` Dial, `type = 2` Bind); the Admin Console's type
    // column filters by name (`type = "Dial"`), which the controller refuses and this accepts too.
    type: { type: 'number', sql: policyTypeNumber, also: { type: 'string', sql: servicePolicies.type } },
    semantic: { type: 'string', sql: servicePolicies.semantic },
    identityRoles: jsonArraySet(servicePolicies.identityRoles),
    serviceRoles: jsonArraySet(servicePolicies.serviceRoles),
    postureCheckRoles: jsonArraySet(servicePolicies.postureCheckRoles),
    // The identities and services the policy matches (public in the controller for service policies only).
    identities: linkedSet(entitiesOfPolicy(servicePolicies.id, 'identity')),
    services: linkedSet(entitiesOfPolicy(servicePolicies.id, 'service')),
  },
  props: {
    name: { column: 'name', kind: 'name' },
    type: { column: 'type', kind: 'string' },
    semantic: { column: 'semantic', kind: 'string' },
    identityRoles: { column: 'identityRoles', kind: 'json', zero: [] },
    serviceRoles: { column: 'serviceRoles', kind: 'json', zero: [] },
    postureCheckRoles: { column: 'postureCheckRoles', kind: 'json', zero: [] },
  },
  unique: [{ column: 'name', field: 'name' }],
  newId: entityId,
});
