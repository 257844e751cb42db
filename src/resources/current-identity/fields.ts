import { authenticators } from '../../db/schema/index.js';
import { commonFields, type FieldMap } from '../../http/list-query.js';

/**
 * Filterable fields of authenticator lists (reference model-and-policies §1.6), without the password hash
 * and salt fields the controller exposes to filters.
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
