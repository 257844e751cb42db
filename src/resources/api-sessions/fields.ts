import { apiSessions } from '../../db/schema/index.js';
import { commonFields, type FieldMap } from '../../crud/list-query.js';

/**
 * Filterable fields of `GET /api-sessions` (reference model-and-policies §1.6), without `token`: a
 * filter such as `token contains "a"` would let tokens be read out one character at a time.
 */
export const apiSessionFields: FieldMap = {
  ...commonFields(apiSessions),
  identity: { type: 'string', sql: apiSessions.identityId },
  lastActivityAt: { type: 'datetime', sql: apiSessions.lastActivityAt },
  // Not a controller symbol: the Admin Console's API-session page filters its "last activity" column by it.
  lastActivity: { type: 'datetime', sql: apiSessions.lastActivityAt },
  authenticator: { type: 'string', sql: apiSessions.authenticatorId },
  ipAddress: { type: 'string', sql: apiSessions.ipAddress },
  mfaComplete: { type: 'bool', sql: apiSessions.isMfaComplete },
  mfaRequired: { type: 'bool', sql: apiSessions.isMfaRequired },
  improperClientCertChain: { type: 'bool', sql: apiSessions.improperClientCertChain },
};
