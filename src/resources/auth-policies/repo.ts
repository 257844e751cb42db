import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { authPolicies, identities } from '../../db/schema/index.js';
import { defineEntity } from '../../http/crud.js';
import { entityId } from '../../lib/ids.js';
import { authPolicyFields } from './fields.js';

export type AuthPolicyRow = typeof authPolicies.$inferSelect;

export const DEFAULT_AUTH_POLICY_ID = 'default';

/** Normalised on every save, as the controller does (reference auth-and-pki §2.6). */
const atLeast = (min: number) => (n: number) => (n < min ? min : n);

export const authPolicyEntity = defineEntity<AuthPolicyRow>({
  entity: 'authPolicy',
  collection: 'auth-policies',
  table: authPolicies,
  fields: authPolicyFields,
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

/** Up to `max` ids of identities assigned to the policy (the 409 cause lists them). */
export async function identitiesUsingPolicy(db: Db, policyId: string, max = 50): Promise<string[]> {
  const rows = await db.select({ id: identities.id }).from(identities).where(eq(identities.authPolicyId, policyId)).orderBy(identities.id).limit(max);
  return rows.map((r) => r.id);
}

/**
 * External JWT signer ids among `ids` that do not exist. There is no signer table yet, so every id is
 * unknown; the external-JWT-signer resource replaces this with a lookup.
 */
export async function missingExtJwtSigners(_db: Db, ids: string[]): Promise<string[]> {
  return ids;
}
