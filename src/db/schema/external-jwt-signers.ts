import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { baseColumns } from './common.js';

/**
 * External JWT signers (reference auth-and-pki §8.1): identity providers whose JWTs log identities in.
 * Name, issuer, kid and certificate fingerprint are unique; SQLite unique indexes let any number of NULLs
 * through, so signers without a kid (or without a certificate) do not collide.
 */
export const externalJwtSigners = sqliteTable(
  'external_jwt_signers',
  {
    ...baseColumns(),
    name: text('name').notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(false),
    issuer: text('issuer').notNull(),
    audience: text('audience').notNull().default(''),
    certPem: text('cert_pem'),
    jwksEndpoint: text('jwks_endpoint'),
    kid: text('kid'),
    claimsProperty: text('claims_property').notNull().default('sub'),
    useExternalId: integer('use_external_id', { mode: 'boolean' }).notNull().default(false),
    externalAuthUrl: text('external_auth_url'),
    clientId: text('client_id'),
    /** JSON array of scopes. */
    scopes: text('scopes').notNull().default('[]'),
    targetToken: text('target_token').notNull().default('ACCESS'),
    /** Derived from certPem: SHA-1 of the DER, lower-case hex. */
    fingerprint: text('fingerprint'),
    commonName: text('common_name'),
    notBefore: integer('not_before'),
    notAfter: integer('not_after'),
  },
  (t) => [
    uniqueIndex('external_jwt_signers_name_uq').on(t.name),
    uniqueIndex('external_jwt_signers_issuer_uq').on(t.issuer),
    uniqueIndex('external_jwt_signers_kid_uq').on(t.kid),
    uniqueIndex('external_jwt_signers_fingerprint_uq').on(t.fingerprint),
  ],
);
