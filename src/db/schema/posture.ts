import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { baseColumns } from './common.js';

/**
 * Posture checks (reference model-and-policies §7.1). One table for the six types: the columns of the
 * other types are null. Lists are JSON text; `process` is a JSON object. `version` is always 1 and not
 * stored. Service policies match checks through their `postureCheckRoles`, kept in `policy_links` with the
 * role `postureCheck` (docs/adr/0006-policy-links.md).
 */
export const postureChecks = sqliteTable(
  'posture_checks',
  {
    ...baseColumns(),
    name: text('name').notNull(),
    typeId: text('type_id', { enum: ['OS', 'MAC', 'DOMAIN', 'PROCESS', 'PROCESS_MULTI', 'MFA'] }).notNull(),
    roleAttributes: text('role_attributes').notNull().default('[]'),
    /** OS: `[{type, versions[]}]`. */
    operatingSystems: text('operating_systems'),
    /** MAC: lower-case hex, separators stripped. */
    macAddresses: text('mac_addresses'),
    /** DOMAIN. */
    domains: text('domains'),
    /** PROCESS: `{osType, path, hashes[], signerFingerprint}`, hashes and fingerprint lower-case. */
    process: text('process'),
    /** PROCESS_MULTI: `[{osType, path, hashes[], signerFingerprints[]}]` with `semantic`. */
    processes: text('processes'),
    semantic: text('semantic'),
    /** MFA: seconds, -1 for none. */
    timeoutSeconds: integer('timeout_seconds'),
    promptOnWake: integer('prompt_on_wake', { mode: 'boolean' }),
    promptOnUnlock: integer('prompt_on_unlock', { mode: 'boolean' }),
    ignoreLegacyEndpoints: integer('ignore_legacy_endpoints', { mode: 'boolean' }),
  },
  (t) => [uniqueIndex('posture_checks_name_uq').on(t.name)],
);

/**
 * The posture an identity reported (§7.2), replaced on every resubmission: one row per identity and kind
 * (`OS`, `MAC`, `DOMAIN` with key ''), one per PROCESS check id (`PROCESS`, key = check id) and one per
 * reported process path (`PATH`, key = path; PROCESS_MULTI checks read these). `data` is the normalised
 * response as JSON. Kept until the identity is deleted; PROCESS and PATH rows are capped per identity.
 */
export const postureResponses = sqliteTable(
  'posture_responses',
  {
    identityId: text('identity_id').notNull(),
    kind: text('kind', { enum: ['OS', 'MAC', 'DOMAIN', 'PROCESS', 'PATH'] }).notNull(),
    key: text('key').notNull(),
    /** The posture check id the client named in the response. */
    postureCheckId: text('posture_check_id').notNull(),
    data: text('data').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.identityId, t.kind, t.key] })],
);

/**
 * What the controller knows per API session besides the session row (which holds `passed_mfa_at`): the
 * last reported wake and unlock (ENDPOINT_STATE) and the SDK info of the login. Deleted with its API
 * session by the trigger `api_session_posture_cleanup` (drizzle/*_api_session_posture_cleanup.sql),
 * whichever code path deletes the session.
 */
export const apiSessionPosture = sqliteTable('api_session_posture', {
  apiSessionId: text('api_session_id').primaryKey(),
  identityId: text('identity_id').notNull(),
  wokenAt: integer('woken_at'),
  unlockedAt: integer('unlocked_at'),
  /** JSON `{appId, appVersion, branch, revision, type, version}`, as the login recorded it. */
  sdkInfo: text('sdk_info'),
  updatedAt: integer('updated_at').notNull(),
});

/**
 * Session requests refused for posture (§7.6): at most 100 per identity, the oldest dropped in the batch
 * that adds one. `seq` orders them (insertion order).
 */
export const failedServiceRequests = sqliteTable(
  'failed_service_requests',
  {
    seq: integer('seq').primaryKey(),
    identityId: text('identity_id').notNull(),
    apiSessionId: text('api_session_id').notNull(),
    serviceId: text('service_id').notNull(),
    serviceName: text('service_name').notNull(),
    sessionType: text('session_type', { enum: ['Dial', 'Bind'] }).notNull(),
    when: integer('when_at').notNull(),
    /** JSON `[{policyId, policyName, checks: [postureCheckFailure]}]`. */
    policyFailures: text('policy_failures').notNull(),
  },
  (t) => [index('failed_service_requests_identity_idx').on(t.identityId, t.seq)],
);
