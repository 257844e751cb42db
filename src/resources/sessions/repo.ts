import { and, asc, eq, gt, sql, type SQL } from 'drizzle-orm';
import { qualified as q } from '../../crud/repo.js';
import { selectRows, type Db } from '../../db/client.js';
import { postureChecksExistSql } from '../../posture/repo.js';
import { apiSessions, edgeRouters, policyLinks, servicePolicies, services, sessions } from '../../db/schema/index.js';
import { serviceGrants } from '../services/repo.js';

/** At most this many edge routers per session, ordered by id (none is ever connected here, §6.2). */
const SESSION_ROUTERS = 25;

/**
 * The edge routers a session may use (§3.3 c): those an edge router policy gives the identity and a
 * service edge router policy gives the service, as a JSON array of the columns its items render.
 */
export function sessionRouters(identityId: SQL | string, serviceId: SQL | string): SQL<string | null> {
  return sql<string | null>`(SELECT json_group_array(json_object('id', zr.id, 'name', zr.name, 'cost', zr.cost, 'noTraversal', zr.no_traversal, 'disabled', zr.disabled, 'appData', json(zr.app_data)))
    FROM (SELECT * FROM ${edgeRouters} AS zr
      WHERE EXISTS (SELECT 1 FROM ${policyLinks} AS ya JOIN ${policyLinks} AS yb ON yb.policy_id = ya.policy_id AND yb.role = 'router' AND yb.entity_id = zr.id
          WHERE ya.entity_id = ${identityId} AND ya.role = 'identity' AND ya.policy_type = 'erp')
        AND EXISTS (SELECT 1 FROM ${policyLinks} AS xa JOIN ${policyLinks} AS xb ON xb.policy_id = xa.policy_id AND xb.role = 'router' AND xb.entity_id = zr.id
          WHERE xa.entity_id = ${serviceId} AND xa.role = 'service' AND xa.policy_type = 'serp')
      ORDER BY zr.id LIMIT ${SESSION_ROUTERS}) AS zr)`;
}

/** What each listed session renders besides its row: service and API session names, its routers. */
export function sessionExtras() {
  return {
    serviceName: sql<string | null>`(SELECT ${q(services.name)} FROM ${services} WHERE ${q(services.id)} = ${q(sessions.serviceId)})`,
    routers: sessionRouters(q(sessions.identityId), q(sessions.serviceId)),
    policyNames: sql<string | null>`(SELECT json_group_array(json_array(zp.id, zp.name)) FROM ${servicePolicies} AS zp WHERE zp.id IN (SELECT value FROM json_each(${q(sessions.servicePolicies)})))`,
  };
}

/**
 * Everything `POST /sessions` decides on, in one read: the service, the policies granting it to the
 * identity, the routers the session would get, and the session this API session already has for it.
 */
export async function sessionProbe(db: Db, identityId: string, apiSessionId: string, serviceId: string, type: 'Dial' | 'Bind') {
  const rows = await db
    .select({
      name: services.name,
      grants: serviceGrants(identityId),
      routers: sessionRouters(identityId, serviceId),
      // Names of the service policies granting the service to the identity (the management detail's refs).
      policyNames: sql<string | null>`(SELECT json_group_array(json_array(zp.id, zp.name)) FROM ${servicePolicies} AS zp WHERE zp.id IN (
        SELECT zb.policy_id FROM ${policyLinks} AS zb JOIN ${policyLinks} AS za ON za.policy_id = zb.policy_id AND za.role = 'identity' AND za.entity_id = ${identityId}
        WHERE zb.entity_id = ${serviceId} AND zb.role = 'service' AND zb.policy_type IN ('dial', 'bind')))`,
      // Whether posture applies at all (§6.1 step 3 is skipped when no posture check exists).
      postureChecks: postureChecksExistSql,
      existing: sql<string | null>`(SELECT json_object('id', zs.id, 'createdAt', zs.created_at, 'updatedAt', zs.updated_at, 'tags', zs.tags, 'servicePolicies', zs.service_policies)
        FROM ${sessions} AS zs WHERE zs.api_session_id = ${apiSessionId} AND zs.service_id = ${serviceId} AND zs.type = ${type})`,
    })
    .from(services)
    .where(eq(services.id, serviceId))
    .limit(1);
  return rows[0];
}

/**
 * Inserts the session unless this API session already has one for the service and type (the unique
 * index decides under concurrency) or the API session has ended meanwhile: the returned id says which.
 */
export async function insertSession(db: Db, row: { id: string; now: number; tags: string; apiSessionId: string; identityId: string; serviceId: string; type: 'Dial' | 'Bind'; servicePolicies: string }): Promise<boolean> {
  const inserted = await db
    .insert(sessions)
    .select(
      sql`SELECT ${row.id}, ${row.now}, ${row.now}, ${row.tags}, 0, ${row.apiSessionId}, ${row.identityId}, ${row.serviceId}, ${row.type}, ${row.servicePolicies}
        WHERE EXISTS (SELECT 1 FROM ${apiSessions} WHERE ${q(apiSessions.id)} = ${row.apiSessionId})`,
    )
    .onConflictDoNothing()
    .returning({ id: sessions.id });
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
