import { identities } from '../../db/schema/index.js';
import { commonFields, jsonArraySet, type FieldMap } from '../../http/list-query.js';

/** Filterable fields of identity lists (reference model-and-policies §1.6); `type` is the type id. */
export const identityFields: FieldMap = {
  ...commonFields(identities),
  name: { type: 'string', sql: identities.name },
  roleAttributes: jsonArraySet(identities.roleAttributes),
  externalId: { type: 'string', sql: identities.externalId },
  type: { type: 'string', sql: identities.typeId },
  authPolicyId: { type: 'string', sql: identities.authPolicyId },
  isAdmin: { type: 'bool', sql: identities.isAdmin },
  isDefaultAdmin: { type: 'bool', sql: identities.isDefaultAdmin },
};
