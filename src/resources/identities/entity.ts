import { defineEntity } from '../../crud/entity.js';
import { commonFields, jsonArraySet } from '../../crud/list-query.js';
import { identities } from '../../db/schema/index.js';
import type { IdentityCreate } from '../../generated/management-types.js';
import { shortId } from '../../lib/ids.js';

export type IdentityRow = typeof identities.$inferSelect;

/** The identity as the API writes it (reference model-and-policies §8; `type` is handled by the service). */
export const identityEntity = defineEntity<IdentityCreate>()({
  entity: 'identity',
  collection: 'identities',
  table: identities,
  /** Filterable fields (reference model-and-policies §1.6); `type` is the type id. */
  fields: {
    ...commonFields(identities),
    name: { type: 'string', sql: identities.name },
    roleAttributes: jsonArraySet(identities.roleAttributes),
    externalId: { type: 'string', sql: identities.externalId },
    type: { type: 'string', sql: identities.typeId },
    authPolicyId: { type: 'string', sql: identities.authPolicyId },
    isAdmin: { type: 'bool', sql: identities.isAdmin },
    isDefaultAdmin: { type: 'bool', sql: identities.isDefaultAdmin },
  },
  props: {
    name: { column: 'name', kind: 'name' },
    isAdmin: { column: 'isAdmin', kind: 'bool' },
    roleAttributes: { column: 'roleAttributes', kind: 'attributes' },
    // Empty or blank means the default policy.
    authPolicyId: { column: 'authPolicyId', kind: 'nullableString', convert: (v) => v ?? 'default' },
    externalId: { column: 'externalId', kind: 'nullableString' },
    defaultHostingCost: { column: 'defaultHostingCost', kind: 'int' },
    defaultHostingPrecedence: { column: 'defaultHostingPrecedence', kind: 'string', zero: 'default' },
    serviceHostingCosts: { column: 'serviceHostingCosts', kind: 'map' },
    serviceHostingPrecedences: { column: 'serviceHostingPrecedences', kind: 'map' },
    appData: { column: 'appData', kind: 'map' },
  },
  unique: [
    { column: 'name', field: 'name' },
    { column: 'externalId', field: 'externalId' },
  ],
  newId: shortId,
});
