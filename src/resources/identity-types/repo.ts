import { identityTypes } from '../../db/schema/index.js';
import { defineEntity } from '../../http/crud.js';
import { commonFields } from '../../http/list-query.js';
import { entityId } from '../../lib/ids.js';

export type IdentityTypeRow = typeof identityTypes.$inferSelect;

/** The built-in identity types (`Default`, `Router`); read-only through the API. */
export const identityTypeEntity = defineEntity<IdentityTypeRow>({
  entity: 'identityType',
  collection: 'identity-types',
  table: identityTypes,
  fields: { ...commonFields(identityTypes), name: { type: 'string', sql: identityTypes.name } },
  props: {},
  newId: entityId,
});
