import { and, asc, eq, gt, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { qualified as q } from '../../crud/repo.js';
import { preparedPer, selectRows, type Db } from '../../db/client.js';
import { postureChecksExistSql, postureInputsColumn } from '../../posture/repo.js';
import { apiSessions, edgeRouters, policyLinks, servicePolicies, services, sessions } from '../../db/schema/index.js';
import { callerRef, type SessionRider } from '../../auth/session-repo.js';

/** At most this many edge routers per session, ordered by id (none is ever connected here, §6.2). */
const SESSION_ROUTERS = 25;

/** The JSON array of the routers' columns their items render (`RouterColumns`), over `zr` at most 25 by id. */
const routerItems = (routers: SQL) =>
  sql<string | null>`(SELECT json_group_array(json_object('id', zr.id, 'name', zr.name, 'cost', zr.cost, 'noTraversal', zr.no_traversal, 'disabled', zr.disabled, 'appData', json(zr.app_data)))
    FROM (${routers} ORDER BY zr.id LIMIT ${SESSION_ROUTERS}) AS zr)`;

/**
 * The edge routers a session of the identity for the service may use (§3.3 c): those an edge router
 * policy gives the identity and a service edge router policy gives the service, at most 25 by id, as a
 * JSON array of `RouterColumns`. For bound ids: the identity's edge router policies and the service's
 * service edge router policies are read once into two in-memory lists, then the routers are walked in
 * id order, each walking its own links of each kind (one index range; the `+` keeps it a range) against
 * those lists, until 25 pass. Probing the link index per policy and router touched far more pages.
 */
export function sessionRouters(identityId: string | Placeholder | SQL, serviceId: string | Placeholder): SQL<string | null> {
  return routerItems(sql`SELECT zr.id, zr.name, zr.cost, zr.no_traversal, zr.disabled, zr.app_data FROM ${edgeRouters} AS zr
      WHERE EXISTS (SELECT 1 FROM ${policyLinks} AS yb WHERE yb.entity_id = zr.id AND yb.role = 'router' AND yb.policy_type = 'erp'
          AND +yb.policy_id IN (SELECT ya.policy_id FROM ${policyLinks} AS ya WHERE ya.entity_id = ${identityId} AND ya.role = 'identity' AND ya.policy_type = 'erp'))
        AND EXISTS (SELECT 1 FROM ${policyLinks} AS xb WHERE xb.entity_id = zr.id AND xb.role = 'router' AND xb.policy_type = 'serp'
          AND +xb.policy_id IN (SELECT xa.policy_id FROM ${policyLinks} AS xa WHERE xa.entity_id = ${serviceId} AND xa.role = 'service' AND xa.policy_type = 'serp'))`);
}

/**
 * The same routers for ids given by columns of an outer row (listed sessions). Lists as in
 * `sessionRouters` would be correlated, rebuilt for every router: here each router probes the policies
 * of the identity (the service) for a link to itself instead.
 */
function sessionRoutersOf(identityId: SQL, serviceId: SQL): SQL<string | null> {
  return routerItems(sql`SELECT zr.id, zr.name, zr.cost, zr.no_traversal, zr.disabled, zr.app_data FROM ${edgeRouters} AS zr
      WHERE EXISTS (SELECT 1 FROM ${policyLinks} AS ya JOIN ${policyLinks} AS yb ON yb.policy_id = ya.policy_id AND yb.role = 'router' AND yb.entity_id = zr.id
          WHERE ya.entity_id = ${identityId} AND ya.role = 'identity' AND ya.policy_type = 'erp')
        AND EXISTS (SELECT 1 FROM ${policyLinks} AS xa JOIN ${policyLinks} AS xb ON xb.policy_id = xa.policy_id AND xb.role = 'router' AND xb.entity_id = zr.id
          WHERE xa.entity_id = ${serviceId} AND xa.role = 'service' AND xa.policy_type = 'serp')`);
}

/** What each listed session renders besides its row: service and API session names, its routers. */
export function sessionExtras() {
  return {
    serviceName: sql<string | null>`(SELECT ${q(services.name)} FROM ${services} WHERE ${q(services.id)} = ${q(sessions.serviceId)})`,
    routers: sessionRoutersOf(q(sessions.identityId), q(sessions.serviceId)),
    policyNames: sql<string | null>`(SELECT json_group_array(json_array(zp.id, zp.name)) FROM ${servicePolicies} AS zp WHERE zp.id IN (SELECT value FROM json_each(${q(sessions.servicePolicies)})))`,
  };
}


const identityId = sql.placeholder('identityId');
const apiSessionId = sql.placeholder('apiSessionId');
const serviceId = sql.placeholder('serviceId');
const sessionType = sql.placeholder('type');

/**
 * The service policies granting the service to the identity, as a JSON array of `[policyId, 'dial' |
 * 'bind', policyName]` ordered by type and id: the identity's and the service's Dial/Bind links are two
 * ranges of one index, sorted by policy id, so they are intersected by merging them (whichever is
 * longer costs a sequential walk, never a probe per row).
 */
const grantsWithNames = (identity: SQL) => sql<string | null>`(SELECT json_group_array(json_array(zg.policy_id, zg.policy_type, zp.name))
  FROM (SELECT zi.policy_type, zi.policy_id FROM ${policyLinks} AS zi WHERE zi.entity_id = ${identity} AND zi.role = 'identity' AND zi.policy_type IN ('bind', 'dial')
    INTERSECT SELECT zv.policy_type, zv.policy_id FROM ${policyLinks} AS zv WHERE zv.entity_id = ${serviceId} AND zv.role = 'service' AND zv.policy_type IN ('bind', 'dial')
    ORDER BY 1, 2) AS zg
  LEFT JOIN ${servicePolicies} AS zp ON zp.id = zg.policy_id)`;

/** The ids of the Dial and Bind policies granting the service to the identity (the merge `grantsWithNames` makes). */
const grantingPolicyIds = (identity: SQL) => sql`SELECT zi.policy_id FROM ${policyLinks} AS zi WHERE zi.entity_id = ${identity} AND zi.role = 'identity' AND zi.policy_type IN ('bind', 'dial')
    INTERSECT SELECT zv.policy_id FROM ${policyLinks} AS zv WHERE zv.entity_id = ${serviceId} AND zv.role = 'service' AND zv.policy_type IN ('bind', 'dial')`;

/**
 * What `POST /sessions` decides on besides the service's name, for the identity and API session given as
 * SQL values (bound ids, or the session check's caller through `callerRef`): the policies granting the service (with their
 * names), the routers the session would get, whether posture checks exist, what evaluating them reads,
 * and the session this API session already has for the service and type.
 */
function probeColumns(identity: SQL, apiSession: SQL) {
  return {
    grants: grantsWithNames(identity),
    routers: sessionRouters(identity, serviceId),
    // Whether posture applies at all (§6.1 step 3 is skipped when no posture check exists).
    postureChecks: postureChecksExistSql,
    // What evaluating it reads, for the policies granting the service to the identity: the create
    // stays one read before its insert (§6.1 step 3). NULL when no posture check exists. A re-create
    // reads it too: the existing session is answered only after the posture step.
    postureInputs: postureInputsColumn(grantingPolicyIds(identity), identity, apiSession),
    existing: sql<string | null>`(SELECT json_object('id', zs.id, 'createdAt', zs.created_at, 'tags', zs.tags, 'servicePolicies', zs.service_policies)
      FROM ${sessions} AS zs WHERE zs.api_session_id = ${apiSession} AND zs.service_id = ${serviceId} AND zs.type = ${sessionType})`,
  };
}

const probeQuery = preparedPer((db) =>
  db
    .select({ name: services.name, ...probeColumns(sql`${identityId}`, sql`${apiSessionId}`) })
    .from(services)
    .where(eq(services.id, serviceId))
    .limit(1)
    .prepare(),
);

/** A session as the probe reads it: what its answer needs besides the caller and the service. */
export interface ExistingSession {
  id: string;
  createdAt: number;
  tags: string;
  /** The ids of the policies that granted it (a JSON array). */
  servicePolicies: string;
}

export interface SessionProbe {
  name: string;
  grants: string | null;
  routers: string | null;
  postureChecks: number;
  postureInputs: string | null;
  existing: string | null;
}

/**
 * Everything `POST /sessions` decides on, in one prepared read: the service, the policies granting it
 * to the identity (with their names), the routers the session would get, whether posture checks exist,
 * and the session this API session already has for it. Undefined when the service does not exist.
 */
export async function sessionProbe(db: Db, ids: { identityId: string; apiSessionId: string; serviceId: string; type: 'Dial' | 'Bind' }): Promise<SessionProbe | undefined> {
  return probeQuery(db).get(ids);
}

/** The probe as the session check reads it (`probeRider`): for this service and type; undefined when the service does not exist. */
export interface RiddenProbe {
  serviceId: string;
  type: 'Dial' | 'Bind';
  probe: SessionProbe | undefined;
}

// The caller's ids through the token hash (`callerRef`): a reference to the lookup's own row would be
// evaluated again for every edge router the router walk visits.
const riddenColumns = probeColumns(callerRef('identity'), callerRef('apiSession'));

/**
 * `POST /sessions` rides on the session check (`SessionRider`): the probe is read in the session lookup's
 * statement, for the service and type of the request's body, so a create is one read before its insert
 * and a re-create one read in all (each a round trip on D1).
 */
export const probeRider: SessionRider<RiddenProbe> = {
  selection: {
    probeName: sql<string | null>`(SELECT ${q(services.name)} FROM ${services} WHERE ${q(services.id)} = ${serviceId})`,
    probeGrants: riddenColumns.grants,
    probeRouters: riddenColumns.routers,
    probePostureChecks: riddenColumns.postureChecks,
    probePostureInputs: riddenColumns.postureInputs,
    probeExisting: riddenColumns.existing,
  },
  params(body) {
    const b = (body ?? {}) as { serviceId?: unknown; type?: unknown };
    const type = b.type ?? 'Dial';
    if (typeof b.serviceId !== 'string' || b.serviceId === '' || (type !== 'Dial' && type !== 'Bind')) return undefined;
    return { serviceId: b.serviceId, type };
  },
  value(row, params) {
    const name = row.probeName as string | null;
    const probe: SessionProbe | undefined =
      name === null
        ? undefined
        : {
            name,
            grants: row.probeGrants as string | null,
            routers: row.probeRouters as string | null,
            postureChecks: Number(row.probePostureChecks),
            postureInputs: row.probePostureInputs as string | null,
            existing: row.probeExisting as string | null,
          };
    return { serviceId: params.serviceId as string, type: params.type as 'Dial' | 'Bind', probe };
  },
};

const insertQuery = preparedPer((db) =>
  db
    .insert(sessions)
    .select(
      sql`SELECT ${sql.placeholder('id')}, ${sql.placeholder('now')}, ${sql.placeholder('now')}, ${sql.placeholder('tags')}, 0, ${apiSessionId}, ${identityId}, ${serviceId}, ${sql.placeholder('type')}, ${sql.placeholder('servicePolicies')}
        WHERE EXISTS (SELECT 1 FROM ${apiSessions} WHERE ${q(apiSessions.id)} = ${apiSessionId})`,
    )
    .onConflictDoNothing()
    .returning({ id: sessions.id })
    .prepare(),
);

/**
 * Inserts the session unless this API session already has one for the service and type (the unique
 * index decides under concurrency) or the API session has ended meanwhile: false then.
 */
export async function insertSession(db: Db, row: { id: string; now: number; tags: string; apiSessionId: string; identityId: string; serviceId: string; type: 'Dial' | 'Bind'; servicePolicies: string }): Promise<boolean> {
  const inserted = await insertQuery(db).all(row);
  return inserted.length > 0;
}

/** Restriction of a caller's view: admins see every session, others their identity's (§6.3). */
export function visibleTo(caller: { isAdmin: boolean; identityId: string }): SQL | undefined {
  return caller.isAdmin ? undefined : eq(sessions.identityId, caller.identityId);
}

export function deleteSessionRow(db: Db, id: string, where?: SQL) {
  return db.delete(sessions).where(and(eq(sessions.id, id), where)).returning({ id: sessions.id });
}

export function deleteSessionStatement(db: Db, id: string) {
  return db.delete(sessions).where(eq(sessions.id, id));
}

/** The sessions an API session holds for a service. */
export function sessionsOfApiSession(db: Db, apiSessionId: string, serviceId: string): Promise<{ id: string }[]> {
  return db.select({ id: sessions.id }).from(sessions).where(and(eq(sessions.apiSessionId, apiSessionId), eq(sessions.serviceId, serviceId)));
}

/** The routers a session of the identity for the service would get, as `sessionRouters` selects them. */
export async function routersFor(db: Db, identityId: string, serviceId: string): Promise<string | null> {
  const [row] = await selectRows(db, sql`SELECT ${sessionRouters(identityId, serviceId)} AS routers`, ['routers']);
  return (row?.routers as string | null | undefined) ?? null;
}

/** A chunk of sessions in id order, after `after` (the sweep's cursor). */
export function sessionsAfter(db: Db, after: string, limit: number) {
  return db.select().from(sessions).where(gt(sessions.id, after)).orderBy(asc(sessions.id)).limit(limit);
}
