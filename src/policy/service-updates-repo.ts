/**
 * `GET /current-api-session/service-updates` (reference model-and-policies §4.5) reads one column,
 * `identities.services_changed_at`, selected with the session check itself: zero extra reads, zero writes
 * on the path every tunneler polls. The cost is on the writes: each write that can change what an identity's
 * service list shows appends a statement built here to its own batch, stamping the identities it affects:
 * - service policy create/update/delete: the identities the policy matched before and after the write;
 * - an identity's attribute change: the identity; a service's create, update, attribute change or delete:
 *   the identities reaching it (before and after);
 * - a config's update or delete: the identities reaching a service using it, and those overriding with it;
 * - a config type's update (its name keys the `config` map): the same, for every config of the type;
 * - an identity's service-config override: the identity;
 * - posture checks: the identities of the service policies that reference the check;
 * - a data-integrity repair: every identity.
 * The stamp is the write's own time, so the value moves forward exactly when the list may have changed.
 * The same stamp tells `endSessionsWithoutAccess` which identities' sessions to re-check in that batch.
 */
import { eq, sql, type SQL } from 'drizzle-orm';
import { qualified as q, type Statement } from '../crud/repo.js';
import type { Db } from '../db/client.js';
import { identities, identityServiceConfigs, policyLinks, serviceConfigs, sessions } from '../db/schema/index.js';

/** Sub-queries yielding identity ids, the `which` of `markServicesChanged`. */
export const affectedIdentities = {
  one: (identityId: string): SQL => sql`SELECT ${identityId}`,
  /** Every identity (a data-integrity repair, which may change anything). */
  all: (): SQL => sql`SELECT ${q(identities.id)} FROM ${identities}`,
  /** The identities a service policy matches now (before its links are replaced, or after). */
  ofPolicy: (policyId: string): SQL => sql`SELECT ${q(policyLinks.entityId)} FROM ${policyLinks} WHERE ${q(policyLinks.policyId)} = ${policyId} AND ${q(policyLinks.role)} = 'identity'`,
  /** The identities that may dial or bind the service. */
  reachingService: (serviceId: string): SQL =>
    sql`SELECT za.entity_id FROM ${policyLinks} AS zb JOIN ${policyLinks} AS za ON za.policy_id = zb.policy_id AND za.role = 'identity'
      WHERE zb.entity_id = ${serviceId} AND zb.role = 'service' AND zb.policy_type IN ('dial', 'bind')`,
  /** The identities that may dial or bind a service using the config, or that override with it. */
  usingConfig: (configId: string): SQL =>
    sql`SELECT za.entity_id FROM ${serviceConfigs} AS zc JOIN ${policyLinks} AS zb ON zb.entity_id = zc.service_id AND zb.role = 'service' AND zb.policy_type IN ('dial', 'bind')
      JOIN ${policyLinks} AS za ON za.policy_id = zb.policy_id AND za.role = 'identity' WHERE zc.config_id = ${configId}
      UNION SELECT ${q(identityServiceConfigs.identityId)} FROM ${identityServiceConfigs} WHERE ${q(identityServiceConfigs.configId)} = ${configId}`,
  /** `usingConfig` for every config of the type. */
  usingConfigType: (configTypeId: string): SQL =>
    sql`SELECT za.entity_id FROM ${serviceConfigs} AS zc JOIN ${policyLinks} AS zb ON zb.entity_id = zc.service_id AND zb.role = 'service' AND zb.policy_type IN ('dial', 'bind')
      JOIN ${policyLinks} AS za ON za.policy_id = zb.policy_id AND za.role = 'identity' WHERE zc.config_type_id = ${configTypeId}
      UNION SELECT ${q(identityServiceConfigs.identityId)} FROM ${identityServiceConfigs} WHERE ${q(identityServiceConfigs.configTypeId)} = ${configTypeId}`,
  /** The identities of the service policies whose posture-check roles name the check (`@id`, `#attr`, `#all`). */
  ofPolicies: (policyIds: SQL): SQL => sql`SELECT ${q(policyLinks.entityId)} FROM ${policyLinks} WHERE ${q(policyLinks.policyId)} IN (${policyIds}) AND ${q(policyLinks.role)} = 'identity'`,
};

/** Stamps the identities `which` yields: their service list may have changed at `now`. */
export function markServicesChanged(db: Db, now: number, which: SQL): Statement {
  return db
    .update(identities)
    .set({ servicesChangedAt: now })
    .where(sql`${q(identities.id)} IN (${which}) AND coalesce(${q(identities.servicesChangedAt)}, 0) < ${now}`);
}

/**
 * Deletes the dial/bind sessions that lost their access (§6.4), in the batch of the write that took it
 * away: only the sessions of identities stamped at `now` (the ones this write may have changed) are
 * checked, each with one probe of the policy links. Runs after the write's link statements.
 */
export function endSessionsWithoutAccess(db: Db, now: number): Statement {
  return db
    .delete(sessions)
    .where(sql`${q(sessions.identityId)} IN (SELECT ${q(identities.id)} FROM ${identities} WHERE ${q(identities.servicesChangedAt)} = ${now}) AND ${sessionLacksAccess}`);
}

/** A `sessions` row no Dial/Bind policy link grants any more (also the data-integrity check's rule). */
export const sessionLacksAccess = sql`NOT EXISTS (SELECT 1 FROM ${policyLinks} AS zb JOIN ${policyLinks} AS za ON za.policy_id = zb.policy_id AND za.role = 'identity' AND za.entity_id = ${q(sessions.identityId)}
  WHERE zb.entity_id = ${q(sessions.serviceId)} AND zb.role = 'service' AND zb.policy_type = lower(${q(sessions.type)}))`;

/** The identity's last service-list change (a bearer session's service-updates: its token does not carry it). */
export async function servicesChangedAt(db: Db, identityId: string): Promise<number | null> {
  const rows = await db.select({ at: identities.servicesChangedAt }).from(identities).where(eq(identities.id, identityId)).limit(1);
  return rows[0]?.at ?? null;
}
