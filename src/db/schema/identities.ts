import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { baseColumns } from './common.js';

export const identityTypes = sqliteTable('identity_types', {
  ...baseColumns(),
  name: text('name').notNull().unique(),
});

export const authPolicies = sqliteTable('auth_policies', {
  ...baseColumns(),
  name: text('name').notNull().unique(),
  certAllowed: integer('cert_allowed', { mode: 'boolean' }).notNull().default(true),
  certAllowExpired: integer('cert_allow_expired', { mode: 'boolean' }).notNull().default(true),
  updbAllowed: integer('updb_allowed', { mode: 'boolean' }).notNull().default(true),
  updbMinPasswordLength: integer('updb_min_password_length').notNull().default(5),
  updbRequireSpecialChar: integer('updb_require_special_char', { mode: 'boolean' }).notNull().default(false),
  updbRequireNumberChar: integer('updb_require_number_char', { mode: 'boolean' }).notNull().default(false),
  updbRequireMixedCase: integer('updb_require_mixed_case', { mode: 'boolean' }).notNull().default(false),
  updbMaxAttempts: integer('updb_max_attempts').notNull().default(0),
  updbLockoutDurationMinutes: integer('updb_lockout_duration_minutes').notNull().default(0),
  extJwtAllowed: integer('ext_jwt_allowed', { mode: 'boolean' }).notNull().default(true),
  /** JSON array of external JWT signer ids, or null for "any". */
  extJwtAllowedSigners: text('ext_jwt_allowed_signers'),
  requireTotp: integer('require_totp', { mode: 'boolean' }).notNull().default(false),
  requireExtJwtSigner: text('require_ext_jwt_signer'),
});

export const identities = sqliteTable(
  'identities',
  {
    ...baseColumns(),
    name: text('name').notNull(),
    typeId: text('type_id').notNull().default('Default'),
    isAdmin: integer('is_admin', { mode: 'boolean' }).notNull().default(false),
    isDefaultAdmin: integer('is_default_admin', { mode: 'boolean' }).notNull().default(false),
    authPolicyId: text('auth_policy_id').notNull().default('default'),
    externalId: text('external_id'),
    /** JSON array, sorted and unique. */
    roleAttributes: text('role_attributes').notNull().default('[]'),
    defaultHostingPrecedence: text('default_hosting_precedence').notNull().default('default'),
    defaultHostingCost: integer('default_hosting_cost').notNull().default(0),
    serviceHostingCosts: text('service_hosting_costs').notNull().default('{}'),
    serviceHostingPrecedences: text('service_hosting_precedences').notNull().default('{}'),
    appData: text('app_data').notNull().default('{}'),
    envInfo: text('env_info'),
    sdkInfo: text('sdk_info'),
    disabledAt: integer('disabled_at'),
    disabledUntil: integer('disabled_until'),
    /** When the identity's service list last may have changed (`service-updates`, src/policy/service-updates-repo.ts). */
    servicesChangedAt: integer('services_changed_at'),
  },
  (t) => [
    uniqueIndex('identities_name_uq').on(t.name),
    uniqueIndex('identities_external_id_uq').on(t.externalId),
    // At most one default admin, even when two instances bootstrap the same database at once.
    uniqueIndex('identities_default_admin_uq').on(t.isDefaultAdmin).where(sql`is_default_admin = 1`),
    index('identities_auth_policy_idx').on(t.authPolicyId),
    index('identities_created_at_idx').on(t.createdAt),
    index('identities_updated_at_idx').on(t.updatedAt),
    index('identities_type_idx').on(t.typeId),
  ],
);

export const authenticators = sqliteTable(
  'authenticators',
  {
    ...baseColumns(),
    identityId: text('identity_id').notNull(),
    method: text('method', { enum: ['updb', 'cert'] }).notNull(),
    username: text('username'),
    /** Self-describing PBKDF2 string (see src/auth/password.ts). Never rendered. */
    passwordHash: text('password_hash'),
    certFingerprint: text('cert_fingerprint'),
    certPem: text('cert_pem'),
    publicKeyPrint: text('public_key_print'),
    isIssuedByNetwork: integer('is_issued_by_network', { mode: 'boolean' }).notNull().default(false),
    unverifiedCertPem: text('unverified_cert_pem'),
    unverifiedFingerprint: text('unverified_fingerprint'),
    isExtendRequested: integer('is_extend_requested', { mode: 'boolean' }).notNull().default(false),
    isKeyRollRequested: integer('is_key_roll_requested', { mode: 'boolean' }).notNull().default(false),
    extendRequestedAt: integer('extend_requested_at'),
    lastAuthResolvedToRoot: integer('last_auth_resolved_to_root', { mode: 'boolean' }).notNull().default(false),
    lastExtendRolledKeys: integer('last_extend_rolled_keys', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [
    uniqueIndex('authenticators_username_uq').on(t.username),
    uniqueIndex('authenticators_fingerprint_uq').on(t.certFingerprint),
    // At most one password authenticator per identity, decided by the store under concurrent creates.
    uniqueIndex('authenticators_identity_updb_uq').on(t.identityId).where(sql`method = 'updb'`),
    index('authenticators_identity_idx').on(t.identityId),
  ],
);

/** Failed password attempts per authenticator, kept in the store so a lockout holds on every instance. */
export const authAttempts = sqliteTable('auth_attempts', {
  authenticatorId: text('authenticator_id').primaryKey(),
  failedCount: integer('failed_count').notNull().default(0),
  lastFailedAt: integer('last_failed_at').notNull(),
});

export const apiSessions = sqliteTable(
  'api_sessions',
  {
    ...baseColumns(),
    /** SHA-256 of the `zt-session` token (hex): the token itself is never stored (src/auth/session-token.ts). */
    tokenHash: text('token_hash').notNull(),
    identityId: text('identity_id').notNull(),
    authenticatorId: text('authenticator_id').notNull(),
    ipAddress: text('ip_address').notNull().default(''),
    /** JSON array of config type ids (or ["all"]). */
    configTypes: text('config_types').notNull().default('[]'),
    isMfaRequired: integer('is_mfa_required', { mode: 'boolean' }).notNull().default(false),
    isMfaComplete: integer('is_mfa_complete', { mode: 'boolean' }).notNull().default(false),
    passedMfaAt: integer('passed_mfa_at'),
    isCertExtendable: integer('is_cert_extendable', { mode: 'boolean' }).notNull().default(false),
    improperClientCertChain: integer('improper_client_cert_chain', { mode: 'boolean' }).notNull().default(false),
    lastActivityAt: integer('last_activity_at').notNull(),
  },
  (t) => [
    uniqueIndex('api_sessions_token_hash_uq').on(t.tokenHash),
    index('api_sessions_identity_idx').on(t.identityId),
    index('api_sessions_authenticator_idx').on(t.authenticatorId),
    index('api_sessions_last_activity_idx').on(t.lastActivityAt),
  ],
);
