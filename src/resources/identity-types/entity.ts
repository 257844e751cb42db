import { defineEntity } from '../../crud/entity.js';
import { commonFields } from '../../crud/list-query.js';
import { identityTypes } from '../../db/schema/index.js';
import { entityId } from '../../lib/ids.js';

export type IdentityTypeRow = typeof identityTypes.$inferSelect;

/** The built-in identity types (`Default`, `Router`); read-only through the API. */
export const identityTypeEntity = defineEntity<Record<never, never>>()({
  entity: 'identityType',
  collection: 'identity-types',
  table: identityTypes,
  fields: { ...commonFields(identityTypes), name: { type: 'string', sql: identityTypes.name } },
  props: {},
  newId: entityId,
});
