import { defineEntity } from '../../crud/entity.js';
import { commonFields, type FieldMap } from '../../crud/list-query.js';
import { authenticators } from '../../db/schema/index.js';
import type { AuthenticatorCreate } from '../../generated/management-types.js';
import { shortId } from '../../lib/ids.js';

export type AuthenticatorRow = typeof authenticators.$inferSelect;

/**
 * Filterable fields of authenticator lists (reference model-and-policies §1.6), also of
 * `/current-identity/authenticators`, without the password hash and salt fields the controller exposes.
 */
export const authenticatorFields: FieldMap = {
  ...commonFields(authenticators),
  method: { type: 'string', sql: authenticators.method },
  identity: { type: 'string', sql: authenticators.identityId },
  updbUsername: { type: 'string', sql: authenticators.username },
  certFingerprint: { type: 'string', sql: authenticators.certFingerprint },
  certPem: { type: 'string', sql: authenticators.certPem },
  publicKeyPrint: { type: 'string', sql: authenticators.publicKeyPrint },
  isIssuedByNetwork: { type: 'bool', sql: authenticators.isIssuedByNetwork },
  isExtendRequested: { type: 'bool', sql: authenticators.isExtendRequested },
  isKeyRollRequested: { type: 'bool', sql: authenticators.isKeyRollRequested },
  extendRequestedAt: { type: 'datetime', sql: authenticators.extendRequestedAt },
  lastAuthResolvedToRoot: { type: 'bool', sql: authenticators.lastAuthResolvedToRoot },
  lastExtendRolledKeys: { type: 'bool', sql: authenticators.lastExtendRolledKeys },
};

/**
 * Authenticators as the management API writes them. Only `tags` is a plain property; the method,
 * identity, username and password hash are set by the service's rules.
 */
export const authenticatorEntity = defineEntity<AuthenticatorCreate>()({
  entity: 'authenticator',
  collection: 'authenticators',
  table: authenticators,
  fields: authenticatorFields,
  props: {},
  // Usernames are globally unique (reference auth-and-pki §2.2 quirk: the controller does not enforce it).
  unique: [
    { column: 'username', field: 'username' },
    { column: 'certFingerprint', field: 'certPem' },
  ],
  newId: shortId,
});
