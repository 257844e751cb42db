import { defineEntity } from '../../crud/entity.js';
import { commonFields, jsonArraySet } from '../../crud/list-query.js';
import { authPolicies } from '../../db/schema/index.js';
import type { AuthPolicyCreate } from '../../generated/management-types.js';
import { entityId } from '../../lib/ids.js';

export type AuthPolicyRow = typeof authPolicies.$inferSelect;

export const DEFAULT_AUTH_POLICY_ID = 'default';

/** Normalised on every save, as the controller does (reference auth-and-pki §2.6). */
const atLeast = (min: number) => (n: number) => (n < min ? min : n);

/** Auth policies (reference auth-and-pki §2.6). */
export const authPolicyEntity = defineEntity<AuthPolicyCreate>()({
  entity: 'authPolicy',
  collection: 'auth-policies',
  table: authPolicies,
  /**
   * The controller's store symbols, with their real types (it declares `requireNumberChar` as a number
   * and `maxAttempts` as a boolean, which no filter could use).
   */
  fields: {
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
  },
  props: {
    name: { column: 'name', kind: 'name' },
    'primary.cert.allowed': { column: 'certAllowed', kind: 'bool' },
    'primary.cert.allowExpiredCerts': { column: 'certAllowExpired', kind: 'bool' },
    'primary.updb.allowed': { column: 'updbAllowed', kind: 'bool' },
    'primary.updb.minPasswordLength': { column: 'updbMinPasswordLength', kind: 'int', convert: atLeast(5) },
    'primary.updb.requireSpecialChar': { column: 'updbRequireSpecialChar', kind: 'bool' },
    'primary.updb.requireNumberChar': { column: 'updbRequireNumberChar', kind: 'bool' },
    'primary.updb.requireMixedCase': { column: 'updbRequireMixedCase', kind: 'bool' },
    'primary.updb.maxAttempts': { column: 'updbMaxAttempts', kind: 'int', convert: atLeast(0) },
    'primary.updb.lockoutDurationMinutes': { column: 'updbLockoutDurationMinutes', kind: 'int', convert: atLeast(0) },
    'primary.extJwt.allowed': { column: 'extJwtAllowed', kind: 'bool' },
    'primary.extJwt.allowedSigners': { column: 'extJwtAllowedSigners', kind: 'json', zero: [] },
    'secondary.requireTotp': { column: 'requireTotp', kind: 'bool' },
    'secondary.requireExtJwtSigner': { column: 'requireExtJwtSigner', kind: 'nullableString' },
  },
  unique: [{ column: 'name', field: 'name' }],
  newId: entityId,
});
