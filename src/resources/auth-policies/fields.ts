import { authPolicies } from '../../db/schema/index.js';
import { commonFields, jsonArraySet, type FieldMap } from '../../http/list-query.js';

/**
 * Filterable fields of auth-policy lists: the controller's store symbols, with their real types (it
 * declares `requireNumberChar` as a number and `maxAttempts` as a boolean, which no filter could use).
 */
export const authPolicyFields: FieldMap = {
  ...commonFields(authPolicies),
  name: { type: 'string', sql: authPolicies.name },
  'primary.cert.allowed': { type: 'bool', sql: authPolicies.certAllowed },
  'primary.cert.allowExpiredCerts': { type: 'bool', sql: authPolicies.certAllowExpired },
  'primary.updb.allowed': { type: 'bool', sql: authPolicies.updbAllowed },
  'primary.updb.minPasswordLength': { type: 'number', sql: authPolicies.updbMinPasswordLength },
  'primary.updb.requireSpecialChar': { type: 'bool', sql: authPolicies.updbRequireSpecialChar },
  'primary.updb.requireNumberChar': { type: 'bool', sql: authPolicies.updbRequireNumberChar },
  'primary.updb.requireMixedCase': { type: 'bool', sql: authPolicies.updbRequireMixedCase },
  'primary.updb.maxAttempts': { type: 'number', sql: authPolicies.updbMaxAttempts },
  'primary.updb.lockoutDurationMinutes': { type: 'number', sql: authPolicies.updbLockoutDurationMinutes },
  'primary.extJwt.allowed': { type: 'bool', sql: authPolicies.extJwtAllowed },
  'primary.extJwt.allowedSigners': jsonArraySet(authPolicies.extJwtAllowedSigners),
  'secondary.requireTotp': { type: 'bool', sql: authPolicies.requireTotp },
  'secondary.requireExtJwtSigner': { type: 'string', sql: authPolicies.requireExtJwtSigner },
};
