import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { baseColumns } from './common.js';

/**
 * Pending credentials (reference auth-and-pki §5.1). The one-time token is never stored in clear: rows
 * are found by the SHA-256 of the token, and the signed JWT (which carries the token as `jti`, and which
 * admins must be able to read back) is kept sealed with AES-GCM under a key derived from
 * CONTROLLER_SECRET. A copy of the database alone therefore enrols nobody.
 */
export const enrollments = sqliteTable(
  'enrollments',
  {
    ...baseColumns(),
    method: text('method', { enum: ['ott', 'ottca', 'updb', 'erott', 'trott'] }).notNull(),
    /** The owner: an identity (ott, ottca, updb), an edge router (erott) or a transit router (trott). */
    identityId: text('identity_id'),
    edgeRouterId: text('edge_router_id'),
    transitRouterId: text('transit_router_id'),
    caId: text('ca_id'),
    /** updb only: the username the authenticator will get. */
    username: text('username'),
    /** Lower-case hex SHA-256 of the token text. */
    tokenHash: text('token_hash').notNull(),
    /** The enrollment JWT, sealed (src/enrollment/seal.ts). */
    jwtSealed: text('jwt_sealed').notNull(),
    issuedAt: integer('issued_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [
    uniqueIndex('enrollments_token_hash_uq').on(t.tokenHash),
    // At most one enrollment per identity and method (409 ENROLLMENT_EXISTS), held by the store.
    uniqueIndex('enrollments_identity_method_uq').on(t.identityId, t.method),
    // At most one pending enrollment per router: a re-enrollment replaces it in one batch.
    uniqueIndex('enrollments_edge_router_uq').on(t.edgeRouterId),
    uniqueIndex('enrollments_transit_router_uq').on(t.transitRouterId),
    index('enrollments_ca_idx').on(t.caId),
  ],
);

/**
 * Certificates tied to one API session (reference §3.6, §6.7): the login certificate of a cert session
 * and those issued by `POST /current-api-session/certificates`. They end with their session.
 */
export const apiSessionCertificates = sqliteTable(
  'api_session_certificates',
  {
    ...baseColumns(),
    apiSessionId: text('api_session_id').notNull(),
    identityId: text('identity_id').notNull(),
    subject: text('subject').notNull(),
    fingerprint: text('fingerprint').notNull(),
    validFrom: integer('valid_from').notNull(),
    validTo: integer('valid_to').notNull(),
    certPem: text('cert_pem').notNull(),
  },
  (t) => [index('api_session_certificates_session_idx').on(t.apiSessionId), index('api_session_certificates_fingerprint_idx').on(t.fingerprint)],
);

/** Third-party CAs (reference §7): their first certificate is the trust anchor, its SHA-1 the fingerprint. */
export const cas = sqliteTable(
  'cas',
  {
    ...baseColumns(),
    name: text('name').notNull(),
    certPem: text('cert_pem').notNull(),
    fingerprint: text('fingerprint').notNull(),
    isVerified: integer('is_verified', { mode: 'boolean' }).notNull().default(false),
    verificationToken: text('verification_token').notNull(),
    isAutoCaEnrollmentEnabled: integer('is_auto_ca_enrollment_enabled', { mode: 'boolean' }).notNull().default(false),
    isOttCaEnrollmentEnabled: integer('is_ott_ca_enrollment_enabled', { mode: 'boolean' }).notNull().default(false),
    isAuthEnabled: integer('is_auth_enabled', { mode: 'boolean' }).notNull().default(false),
    /** JSON array, sorted and unique. */
    identityRoles: text('identity_roles').notNull().default('[]'),
    identityNameFormat: text('identity_name_format').notNull().default('[caName]-[commonName]'),
    /** JSON object `{location, matcher, matcherCriteria, parser, parserCriteria, index}`, or null. */
    externalIdClaim: text('external_id_claim'),
  },
  (t) => [uniqueIndex('cas_name_uq').on(t.name), uniqueIndex('cas_fingerprint_uq').on(t.fingerprint)],
);
