/**
 * The store side of posture (reference model-and-policies §7; docs/posture.md): the checks service
 * policies match (through `policy_links`, role `postureCheck`), the posture data identities and API
 * sessions report, and failed service requests. Every multi-row write is one batch built from these
 * statements; no statement binds more than a handful of parameters (lists travel as one JSON value).
 */
import { and, asc, eq, getTableColumns, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { keptStatement, preparedPer, selectRows, type Db, type Statement } from '../db/client.js';
import { apiSessionPosture, apiSessions, failedServiceRequests, identities, mfas, policyLinks, postureChecks, postureResponses, services } from '../db/schema/index.js';
import { qualified as q } from '../crud/repo.js';
import type { PostureCheckRow } from './checks.js';

/** Whether any posture check exists: one probe of the primary key. */
/** Whether any posture check exists, as a column of another statement (uncorrelated: evaluated once). */
export const postureChecksExistSql = sql<number>`EXISTS (SELECT 1 FROM ${postureChecks})`;

export async function anyPostureCheck(db: Db): Promise<boolean> {
  const rows = await db.select({ id: postureChecks.id }).from(postureChecks).limit(1);
  return rows.length > 0;
}

/** The service policies whose posture-check roles match the check now (a sub-query, for service-updates). */
export function policiesOfCheck(checkId: string) {
  return sql`SELECT ${q(policyLinks.policyId)} FROM ${policyLinks} WHERE ${q(policyLinks.entityId)} = ${checkId} AND ${q(policyLinks.role)} = 'postureCheck'`;
}

export type ResponseKind = (typeof postureResponses.$inferSelect)['kind'];

export interface ResponseRow {
  kind: ResponseKind | 'SESSION';
  key: string;
  checkId: string;
  data: string;
  at: number;
}

const responsesOf = (identityId: string) =>
  sql`SELECT ${q(postureResponses.kind)} AS kind, ${q(postureResponses.key)} AS key, ${q(postureResponses.postureCheckId)} AS checkId, ${q(postureResponses.data)} AS data, ${q(postureResponses.updatedAt)} AS at
    FROM ${postureResponses} WHERE ${q(postureResponses.identityId)} = ${identityId}`;

/** A verified MFA enrolment of the identity: without one, no session counts as having passed MFA. */
const verifiedMfa = (identity: ReturnType<typeof sql>) => sql`EXISTS (SELECT 1 FROM ${mfas} AS zm WHERE zm.identity_id = ${identity} AND zm.is_verified = 1)`;

const RESPONSE_COLUMNS = ['kind', 'key', 'checkId', 'data', 'at'] as const;

/** The check's columns, in select order: `postureInputs` selects them after the five response columns. */
const CHECK_COLUMNS = Object.entries(getTableColumns(postureChecks));

export interface PostureInputs {
  /** The posture checks the policies match, each once with the ids of those policies, by check id. */
  checks: { check: PostureCheckRow; policyIds: string[] }[];
  /**
   * The identity's responses, and one `SESSION` row with the API session's MFA time, wake/unlock and SDK
   * info (the login's, else the identity's).
   */
  responses: ResponseRow[];
}

/**
 * Everything posture evaluation reads, in one prepared statement whatever the number of policies: the
 * checks the policies' posture-check roles match (one row per distinct check, the policy ids as one JSON
 * parameter), then the identity's and API session's posture data. A service page reads it once; two
 * statements were a round trip more on D1. `POST /sessions` reads the same rows inside its probe
 * (`postureInputsColumn`).
 */
export async function postureInputs(db: Db, policyIds: readonly string[], identityId: string, apiSessionId: string): Promise<PostureInputs> {
  return postureInputsOf((await postureInputsQuery(db).values({ policyIds: JSON.stringify(policyIds), identityId, apiSessionId })) as unknown[][]);
}

/** The rows of `postureInputsUnion` (response columns, then the check's) as `PostureInputs`, checks by id. */
export function postureInputsOf(rows: readonly unknown[][]): PostureInputs {
  const out: PostureInputs = { checks: [], responses: [] };
  for (const r of rows) {
    if (r[0] !== 'CHECK') {
      out.responses.push({ kind: r[0], key: r[1], checkId: r[2], data: r[3], at: r[4] } as ResponseRow);
      continue;
    }
    const check: Record<string, unknown> = {};
    for (let i = 0; i < CHECK_COLUMNS.length; i++) {
      const value = r[RESPONSE_COLUMNS.length + i];
      check[CHECK_COLUMNS[i][0]] = value === null ? null : CHECK_COLUMNS[i][1].mapFromDriverValue(value);
    }
    out.checks.push({ check: check as PostureCheckRow, policyIds: JSON.parse(String(r[1])) as string[] });
  }
  out.checks.sort((a, b) => (a.check.id < b.check.id ? -1 : a.check.id > b.check.id ? 1 : 0));
  return out;
}

/**
 * The rows posture evaluation reads, as one union: the checks matched by the policies `policyIds` selects
 * (a sub-query of policy ids), then the identity's responses, then the API session's `SESSION` row. Every
 * value is plain text or a number (`|| ''` drops the JSON subtype), so the rows can travel as JSON too.
 */
function postureInputsUnion(policyIds: SQL, identityId: Placeholder | SQL, apiSessionId: Placeholder | SQL): SQL {
  const checkColumns = sql.join(
    CHECK_COLUMNS.map(([, column], i) => sql`${q(column)} AS ${sql.raw(`c${i}`)}`),
    sql`, `,
  );
  // Check rows carry the matching policies in `key`; response rows have no check columns.
  return sql`SELECT 'CHECK' AS kind, json_group_array(${q(policyLinks.policyId)}) || '' AS key, ${q(postureChecks.id)} AS checkId, NULL AS data, 0 AS at, ${checkColumns}
      FROM ${policyLinks} JOIN ${postureChecks} ON ${q(postureChecks.id)} = ${q(policyLinks.entityId)}
      WHERE ${q(policyLinks.role)} = 'postureCheck' AND ${q(policyLinks.policyId)} IN (${policyIds})
      GROUP BY ${q(postureChecks.id)}
    UNION ALL
    ${postureDataRows(identityId, apiSessionId, sql.raw(`, ${CHECK_COLUMNS.map(() => 'NULL').join(', ')}`))}`;
}

/**
 * The posture the identity and its API session reported, as rows of the response columns (`padding`: the
 * union's other columns): the identity's responses, then the API session's `SESSION` row.
 */
function postureDataRows(identityId: Placeholder | SQL, apiSessionId: Placeholder | SQL, padding: SQL): SQL {
  return sql`SELECT ${q(postureResponses.kind)} AS kind, ${q(postureResponses.key)} AS key, ${q(postureResponses.postureCheckId)} AS checkId, ${q(postureResponses.data)} AS data, ${q(postureResponses.updatedAt)} AS at${padding}
      FROM ${postureResponses} WHERE ${q(postureResponses.identityId)} = ${identityId}
    UNION ALL
    SELECT 'SESSION', '', '', json_object('passedMfaAt', CASE WHEN ${verifiedMfa(sql`zs.identity_id`)} THEN zs.passed_mfa_at END, 'wokenAt', zp.woken_at, 'unlockedAt', zp.unlocked_at, 'sdkInfo', json(coalesce(zp.sdk_info, zi.sdk_info))) || '', 0${padding}
      FROM ${apiSessions} AS zs LEFT JOIN ${apiSessionPosture} AS zp ON zp.api_session_id = zs.id LEFT JOIN ${identities} AS zi ON zi.id = zs.identity_id
      WHERE zs.id = ${apiSessionId} AND zs.identity_id = ${identityId}`;
}

/**
 * The reported posture of `postureInputsColumn` without the checks: the identity's responses and the API
 * session's `SESSION` row as one text, NULL when no posture check exists at all. With the identity's
 * service-list stamp (which every change of a check its policies match moves) it tells whether an
 * evaluation could come out differently, at a fraction of the cost of reading the checks.
 */
export function postureStateColumn(identityId: Placeholder | SQL, apiSessionId: Placeholder | SQL): SQL<string | null> {
  return sql<string | null>`CASE WHEN ${postureChecksExistSql} THEN (SELECT json_group_array(json_array(zr.kind, zr.key, zr.checkId, zr.data, zr.at)) FROM (${postureDataRows(identityId, apiSessionId, sql``)}) AS zr) END`;
}

const UNION_COLUMNS = [...RESPONSE_COLUMNS, ...CHECK_COLUMNS.map((_, i) => `c${i}`)];

const postureInputsQuery = preparedPer((db) => {
  const union = postureInputsUnion(sql`SELECT value FROM json_each(${sql.placeholder('policyIds')})`, sql.placeholder('identityId'), sql.placeholder('apiSessionId'));
  // The derived table makes the union a plain select, the form drizzle prepares; checks come first, by id.
  return db
    .select(Object.fromEntries(UNION_COLUMNS.map((n) => [n, sql.raw(`zr.${n}`)])))
    .from(sql`(${union}) AS zr`)
    .orderBy(sql`zr.kind <> 'CHECK'`, sql`zr.checkId`)
    .prepare();
});

/**
 * The same rows as one column of another statement: a JSON array of value arrays (`postureInputsOf`
 * reads them), NULL when no posture check exists at all. `POST /sessions` reads it inside its probe, so
 * a create under posture checks is still one read before its insert.
 */
export function postureInputsColumn(policyIds: SQL, identityId: Placeholder | SQL, apiSessionId: Placeholder | SQL): SQL<string | null> {
  const union = postureInputsUnion(policyIds, identityId, apiSessionId);
  const row = sql.join(
    UNION_COLUMNS.map((n) => sql.raw(`zr.${n}`)),
    sql`, `,
  );
  return sql<string | null>`CASE WHEN ${postureChecksExistSql} THEN (SELECT json_group_array(json_array(${row})) FROM (${union}) AS zr) END`;
}

/** The identity's responses alone (the management posture-data view). */
export function identityResponseRows(db: Db, identityId: string): Promise<ResponseRow[]> {
  return selectRows<typeof RESPONSE_COLUMNS, ResponseRow>(db, responsesOf(identityId), RESPONSE_COLUMNS);
}

export interface SessionPostureRow {
  id: string;
  passedMfaAt: number | null;
  wokenAt: number | null;
  unlockedAt: number | null;
  sdkInfo: string | null;
}

const SESSION_COLUMNS = ['id', 'passedMfaAt', 'wokenAt', 'unlockedAt', 'sdkInfo'] as const;

/** The identity's live API sessions (most recently active first, at most `max`) with their posture state. */
export function identitySessionRows(db: Db, identityId: string, liveSince: number, max: number): Promise<SessionPostureRow[]> {
  return selectRows<typeof SESSION_COLUMNS, SessionPostureRow>(db, sql`SELECT zs.id AS id, CASE WHEN ${verifiedMfa(sql`zs.identity_id`)} THEN zs.passed_mfa_at END AS passedMfaAt,
      zp.woken_at AS wokenAt, zp.unlocked_at AS unlockedAt, coalesce(zp.sdk_info, zi.sdk_info) AS sdkInfo
    FROM ${apiSessions} AS zs LEFT JOIN ${apiSessionPosture} AS zp ON zp.api_session_id = zs.id LEFT JOIN ${identities} AS zi ON zi.id = zs.identity_id
    WHERE zs.identity_id = ${identityId} AND zs.last_activity_at >= ${liveSince} ORDER BY zs.last_activity_at DESC, zs.id LIMIT ${max}`, SESSION_COLUMNS);
}

// ---------------------------------------------------------------------------------------------------------
// Writes of posture responses

/** At most this many PROCESS rows (by check id) and as many PATH rows (by path) are kept per identity. */
export const MAX_PROCESS_ROWS = 100;

/** Replaces the identity's response of a kind and key. */
export function upsertResponse(db: Db, row: typeof postureResponses.$inferInsert): Statement {
  return db
    .insert(postureResponses)
    .values(row)
    .onConflictDoUpdate({ target: [postureResponses.identityId, postureResponses.kind, postureResponses.key], set: { postureCheckId: row.postureCheckId, data: row.data, updatedAt: row.updatedAt } });
}

/** Drops the identity's oldest PROCESS or PATH rows beyond MAX_PROCESS_ROWS. */
export function trimResponses(db: Db, identityId: string, kind: 'PROCESS' | 'PATH'): Statement {
  const kept = sql`SELECT zk.key FROM ${postureResponses} AS zk WHERE zk.identity_id = ${identityId} AND zk.kind = ${kind} ORDER BY zk.updated_at DESC, zk.key LIMIT ${MAX_PROCESS_ROWS}`;
  return db.delete(postureResponses).where(and(eq(postureResponses.identityId, identityId), eq(postureResponses.kind, kind), sql`${postureResponses.key} NOT IN (${kept})`));
}

/**
 * Records a wake and/or unlock on the API session, only while the session exists (its deletion removes
 * the row through the cleanup trigger; an insert after it would outlive it).
 */
export function recordEndpointState(db: Db, apiSessionId: string, identityId: string, state: { wokenAt: number | null; unlockedAt: number | null }, now: number): Statement {
  return db
    .insert(apiSessionPosture)
    .select(sql`SELECT ${apiSessionId}, ${identityId}, ${state.wokenAt}, ${state.unlockedAt}, NULL, ${now} WHERE EXISTS (SELECT 1 FROM ${apiSessions} WHERE ${q(apiSessions.id)} = ${apiSessionId})`)
    .onConflictDoUpdate({
      target: apiSessionPosture.apiSessionId,
      set: {
        wokenAt: sql`coalesce(excluded.woken_at, ${apiSessionPosture.wokenAt})`,
        unlockedAt: sql`coalesce(excluded.unlocked_at, ${apiSessionPosture.unlockedAt})`,
        updatedAt: now,
      },
    });
}

/**
 * The SDK info of a login, copied from the identity (which the login has just updated, earlier in the same
 * batch) onto the new API session, as the controller does when a session starts; only if the session was
 * created and the identity reported SDK info.
 */
export function recordLoginSdkInfo(db: Db, apiSessionId: string, identityId: string, now: number): Statement {
  return loginSdkInfoInsert(db, { apiSessionId, identityId, now });
}

/** Built once per store handle: every login writes it (`keptStatement`). */
const loginSdkInfoInsert = keptStatement((db) => {
  const apiSessionId = sql.placeholder('apiSessionId');
  const identityId = sql.placeholder('identityId');
  return db
    .insert(apiSessionPosture)
    .select(
      sql`SELECT ${apiSessionId}, ${identityId}, NULL, NULL, ${q(identities.sdkInfo)}, ${sql.placeholder('now')} FROM ${identities}
        WHERE ${q(identities.id)} = ${identityId} AND ${q(identities.sdkInfo)} IS NOT NULL AND EXISTS (SELECT 1 FROM ${apiSessions} WHERE ${q(apiSessions.id)} = ${apiSessionId})`,
    )
    .onConflictDoNothing()
    .prepare();
});

const AFFECTED_COLUMNS = ['id', 'name', 'timeout'] as const;

export interface AffectedService {
  id: string;
  name: string;
  timeout: number;
}

/**
 * Services whose MFA timers a wake or unlock restarts (§7.2): those the identity reaches through a service
 * policy whose posture checks include an MFA check prompting on that event, with a timeout the grace period
 * shortens (none, or more than the grace left after `sinceMfaSeconds`). The lowest such timeout per service.
 */
export function servicesPromptedBy(db: Db, identityId: string, event: { woken: boolean; unlocked: boolean }, sinceMfaSeconds: number, graceSeconds: number): Promise<AffectedService[]> {
  return selectRows<typeof AFFECTED_COLUMNS, AffectedService>(db, sql`SELECT zv.id AS id, zv.name AS name, min(zc.timeout_seconds) AS timeout
    FROM ${postureChecks} AS zc
    JOIN ${policyLinks} AS zl ON zl.entity_id = zc.id AND zl.role = 'postureCheck'
    JOIN ${policyLinks} AS zi ON zi.policy_id = zl.policy_id AND zi.role = 'identity' AND zi.entity_id = ${identityId}
    JOIN ${policyLinks} AS zs ON zs.policy_id = zl.policy_id AND zs.role = 'service'
    JOIN ${services} AS zv ON zv.id = zs.entity_id
    WHERE zc.type_id = 'MFA' AND ((${event.woken ? 1 : 0} = 1 AND zc.prompt_on_wake = 1) OR (${event.unlocked ? 1 : 0} = 1 AND zc.prompt_on_unlock = 1))
      AND (zc.timeout_seconds = -1 OR zc.timeout_seconds - ${sinceMfaSeconds} > ${graceSeconds})
      AND ${verifiedMfa(sql`${identityId}`)}
    GROUP BY zv.id, zv.name ORDER BY zv.name, zv.id`, AFFECTED_COLUMNS);
}

// ---------------------------------------------------------------------------------------------------------
// Failed service requests

/** At most this many failed service requests are kept per identity (§7.6). */
export const MAX_FAILED_REQUESTS = 100;

/** Adds a failed service request and drops the identity's oldest beyond the cap: two statements for one batch. */
export function addFailedRequest(db: Db, row: Omit<typeof failedServiceRequests.$inferInsert, 'seq'>): Statement[] {
  const kept = sql`SELECT zf.seq FROM ${failedServiceRequests} AS zf WHERE zf.identity_id = ${row.identityId} ORDER BY zf.seq DESC LIMIT ${MAX_FAILED_REQUESTS}`;
  return [db.insert(failedServiceRequests).values(row), db.delete(failedServiceRequests).where(and(eq(failedServiceRequests.identityId, row.identityId), sql`${failedServiceRequests.seq} NOT IN (${kept})`))];
}

/** The identity's failed service requests, oldest first. */
export function failedRequestsOf(db: Db, identityId: string) {
  return db.select().from(failedServiceRequests).where(eq(failedServiceRequests.identityId, identityId)).orderBy(asc(failedServiceRequests.seq)).limit(MAX_FAILED_REQUESTS);
}

/** What goes with a deleted identity: its reported posture and failed requests (its sessions' rows go with the sessions). */
export function identityPostureCascade(db: Db, identityId: string): Statement[] {
  return [db.delete(postureResponses).where(eq(postureResponses.identityId, identityId)), db.delete(failedServiceRequests).where(eq(failedServiceRequests.identityId, identityId))];
}
