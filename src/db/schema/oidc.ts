import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { baseColumns } from './common.js';

/**
 * The OIDC provider's state (src/oidc, docs/adr/0009-oidc.md). Everything a flow needs between its steps
 * is a store row, so that any instance can finish a flow another instance began; what a request presenting
 * an access token needs is in the token and in the per-instance copy of `oidc_revocations`.
 */

/**
 * An authorization request, from `/oidc/authorize` until its code is redeemed (10 minutes at most). Keyed
 * by the SHA-256 of the id the client holds, and the code is kept only as its hash: a copy of the store
 * cannot finish anybody's flow. Each step is a conditional write on this row.
 */
export const oidcAuthRequests = sqliteTable(
  'oidc_auth_requests',
  {
    idHash: text('id_hash').primaryKey(),
    clientId: text('client_id').notNull(),
    redirectUri: text('redirect_uri').notNull(),
    state: text('state'),
    nonce: text('nonce'),
    /** JSON array of the granted scopes. */
    scopes: text('scopes').notNull(),
    /** S256 PKCE challenge (base64url). */
    codeChallenge: text('code_challenge').notNull(),
    /** The API session id the tokens will carry (`z_asid`). */
    apiSessionId: text('api_session_id').notNull(),
    remoteAddress: text('remote_address').notNull(),
    /** JSON array of the SHA-1 fingerprints of the TLS client certificates seen (`z_cfs`). */
    certFingerprints: text('cert_fingerprints').notNull().default('[]'),
    /** JSON array of config type ids (`z_ct`), from `configTypes` at authorize or login. */
    configTypes: text('config_types').notNull().default('[]'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    /** Set by the primary login. */
    identityId: text('identity_id'),
    authenticatorId: text('authenticator_id'),
    /** JSON array of the methods used (`password`, `cert`, `ext-jwt`, `totp`). */
    amr: text('amr').notNull().default('[]'),
    authTime: integer('auth_time'),
    totpRequired: integer('totp_required', { mode: 'boolean' }).notNull().default(false),
    totpDone: integer('totp_done', { mode: 'boolean' }).notNull().default(false),
    /** The external JWT signer the auth policy requires as a second factor, while it is outstanding. */
    extJwtPending: text('ext_jwt_pending'),
    certExtendable: integer('cert_extendable', { mode: 'boolean' }).notNull().default(false),
    certExtendRequested: integer('cert_extend_requested', { mode: 'boolean' }).notNull().default(false),
    certKeyRollRequested: integer('cert_key_roll_requested', { mode: 'boolean' }).notNull().default(false),
    improperChain: integer('improper_chain', { mode: 'boolean' }).notNull().default(false),
    sdkInfo: text('sdk_info'),
    envInfo: text('env_info'),
    /** SHA-256 of the authorization code, once issued. */
    codeHash: text('code_hash'),
    /** When the code was redeemed: a code is redeemed once (the conditional write that sets this decides). */
    consumedAt: integer('consumed_at'),
    /** A random value only the winning redemption wrote, which the statements batched after it test. */
    consumeId: text('consume_id'),
  },
  (t) => [uniqueIndex('oidc_auth_requests_code_uq').on(t.codeHash), index('oidc_auth_requests_expires_idx').on(t.expiresAt)],
);

/**
 * An OIDC API session (`z_asid`) and its refresh-token family: the refresh token in force is `current_jti`;
 * a refresh or exchange rotates it by a conditional write on that column, so a rotated token is refused.
 */
export const oidcSessions = sqliteTable(
  'oidc_sessions',
  {
    id: text('id').primaryKey(),
    identityId: text('identity_id').notNull(),
    authenticatorId: text('authenticator_id').notNull(),
    clientId: text('client_id').notNull(),
    currentJti: text('current_jti').notNull(),
    previousJti: text('previous_jti'),
    rotatedAt: integer('rotated_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    /** Expiry of the refresh token in force. */
    expiresAt: integer('expires_at').notNull(),
    revokedAt: integer('revoked_at'),
  },
  (t) => [
    index('oidc_sessions_identity_idx').on(t.identityId),
    index('oidc_sessions_authenticator_idx').on(t.authenticatorId),
    index('oidc_sessions_expires_idx').on(t.expiresAt),
  ],
);

/**
 * The deny-list every instance copies and refreshes (src/oidc/revocations.ts): `identity` (tokens of the
 * identity issued before `not_before`), `authenticator`, `session` (`z_asid`) and `token` (`jti`). Rows are
 * only ever appended (read incrementally by `seq`) and pruned once every token they could stop has expired.
 * Triggers (drizzle/*_oidc_revocation_triggers.sql) append the rows for identity disable, admin-flag
 * change and delete, and authenticator delete, in the statement that makes the change.
 */
export const oidcRevocations = sqliteTable(
  'oidc_revocations',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    kind: text('kind', { enum: ['identity', 'authenticator', 'session', 'token'] }).notNull(),
    subject: text('subject').notNull(),
    /** Unix ms: tokens issued before this are refused (far future: all of them). */
    notBefore: integer('not_before').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('oidc_revocations_created_idx').on(t.createdAt)],
);

/**
 * Keys that sign tokens, by `kid` (the SHA-1 of the key's certificate):
 * - `server`: the TLS server certificate's key (ES256), which signs access, refresh and service tokens.
 *   Each instance records its public key before its first token, so that after a certificate renewal the
 *   previous key stays published (`/oidc/keys`) and verifiable until every token it signed has expired;
 * - `id-token`: an RSA key (RS256) with a certificate from the controller's signer, which signs ID tokens
 *   (relying parties such as the Go SDK's accept only RS256 ID tokens). Shared by all instances, its private
 *   key stored encrypted under CONTROLLER_SECRET like the PKI's; replaced 30 days before it expires.
 */
export const oidcSigningKeys = sqliteTable(
  'oidc_signing_keys',
  {
    kid: text('kid').primaryKey(),
    use: text('use', { enum: ['server', 'id-token'] }).notNull().default('server'),
    alg: text('alg').notNull(),
    /** The public JWK, JSON. */
    jwk: text('jwk').notNull(),
    /** `id-token` keys: the encrypted PKCS#8 private key (src/pki/secrets.ts format). */
    encryptedKey: text('encrypted_key'),
    /** When the certificate of the key expires (Unix ms). */
    notAfter: integer('not_after').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('oidc_signing_keys_use_idx').on(t.use, t.notAfter)],
);

/**
 * `/controller-settings`: the `global` row (seeded by the migration, never deleted) and per-controller
 * overrides keyed by controller id. A null list inherits (instance → global → built-in defaults).
 */
export const controllerSettings = sqliteTable('controller_settings', {
  ...baseColumns(),
  /** JSON array of allowed OIDC redirect URIs (`*` globs), or null to inherit. */
  redirectUris: text('redirect_uris'),
  /** JSON array of allowed post-logout redirect URIs, or null to inherit. */
  postLogoutUris: text('post_logout_uris'),
});
