import { and, eq, sql, type SQL } from 'drizzle-orm';
import { qualified as q, type Statement } from '../../crud/repo.js';
import { selectRows, type Db } from '../../db/client.js';
import { configs, edgeRouters, identityServiceConfigs, policyLinks, serviceConfigs, services } from '../../db/schema/index.js';

/** Configs attached to a service (`GET /services/{id}/configs`). */
export function configsOfService(serviceId: string): SQL {
  return sql`${q(configs.id)} IN (SELECT ${q(serviceConfigs.configId)} FROM ${serviceConfigs} WHERE ${q(serviceConfigs.serviceId)} = ${serviceId})`;
}

/** Distinct edge routers reachable from the entity through policies of the type (policy advice counts). */
export async function routersOf(db: Db, role: 'identity' | 'service', id: string, type: 'erp' | 'serp'): Promise<Set<string>> {
  const rows = await selectRows(
    db,
    sql`SELECT DISTINCT zb.entity_id AS id FROM ${policyLinks} AS za JOIN ${policyLinks} AS zb ON zb.policy_id = za.policy_id AND zb.role = 'router' WHERE za.entity_id = ${id} AND za.role = ${role} AND za.policy_type = ${type}`,
    ['id'],
  );
  return new Set(rows.map((r) => r.id as string));
}

export async function routerNames(db: Db, ids: string[]): Promise<{ id: string; name: string }[]> {
  if (ids.length === 0) return [];
  const rows = await selectRows(db, sql`SELECT ${q(edgeRouters.id)} AS id, ${q(edgeRouters.name)} AS name FROM ${edgeRouters} WHERE ${q(edgeRouters.id)} IN (SELECT value FROM json_each(${JSON.stringify(ids)})) ORDER BY ${q(edgeRouters.id)}`, ['id', 'name']);
  return rows.map((r) => ({ id: r.id as string, name: r.name as string }));
}

/** The identity's overrides with the names of their service and config (§8.7). */
export async function overridesOf(db: Db, identityId: string) {
  return db
    .select({ serviceId: identityServiceConfigs.serviceId, serviceName: services.name, configId: identityServiceConfigs.configId, configName: configs.name })
    .from(identityServiceConfigs)
    .innerJoin(services, eq(services.id, identityServiceConfigs.serviceId))
    .innerJoin(configs, eq(configs.id, identityServiceConfigs.configId))
    .where(eq(identityServiceConfigs.identityId, identityId))
    .orderBy(identityServiceConfigs.serviceId, identityServiceConfigs.configTypeId);
}

export async function configTypeOf(db: Db, configId: string): Promise<string | undefined> {
  const rows = await db.select({ t: configs.configTypeId }).from(configs).where(eq(configs.id, configId)).limit(1);
  return rows[0]?.t;
}

export async function serviceExists(db: Db, serviceId: string): Promise<boolean> {
  return (await db.select({ id: services.id }).from(services).where(eq(services.id, serviceId)).limit(1)).length > 0;
}

/** Sets (replacing the same type's) or removes overrides, as one batch's statements. */
export function setOverride(db: Db, identityId: string, serviceId: string, configTypeId: string, configId: string): Statement {
  return db.insert(identityServiceConfigs).values({ identityId, serviceId, configTypeId, configId }).onConflictDoUpdate({ target: [identityServiceConfigs.identityId, identityServiceConfigs.serviceId, identityServiceConfigs.configTypeId], set: { configId } });
}
export function removeOverride(db: Db, identityId: string, serviceId: string, configTypeId: string): Statement {
  return db.delete(identityServiceConfigs).where(and(eq(identityServiceConfigs.identityId, identityId), eq(identityServiceConfigs.serviceId, serviceId), eq(identityServiceConfigs.configTypeId, configTypeId)));
}
