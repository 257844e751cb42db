import { eq, sql } from 'drizzle-orm';
import { qualified as q, type Statement } from '../../crud/repo.js';
import type { Db } from '../../db/client.js';
import { edgeRouters, services, terminators, transitRouters } from '../../db/schema/index.js';

/** The names of the service and router, selected with each terminator for their entityRefs. */
export function terminatorExtras() {
  return {
    serviceName: sql<string | null>`(SELECT ${q(services.name)} FROM ${services} WHERE ${q(services.id)} = ${q(terminators.serviceId)})`,
    routerName: sql<string | null>`coalesce((SELECT ${q(edgeRouters.name)} FROM ${edgeRouters} WHERE ${q(edgeRouters.id)} = ${q(terminators.routerId)}), (SELECT ${q(transitRouters.name)} FROM ${transitRouters} WHERE ${q(transitRouters.id)} = ${q(terminators.routerId)}))`,
  };
}

/** An edge or transit router with this id exists. */
export async function routerExists(db: Db, id: string): Promise<boolean> {
  const [a, b] = await Promise.all([
    db.select({ id: edgeRouters.id }).from(edgeRouters).where(eq(edgeRouters.id, id)).limit(1),
    db.select({ id: transitRouters.id }).from(transitRouters).where(eq(transitRouters.id, id)).limit(1),
  ]);
  return a.length + b.length > 0;
}

export async function serviceExists(db: Db, id: string): Promise<boolean> {
  return (await db.select({ id: services.id }).from(services).where(eq(services.id, id)).limit(1)).length > 0;
}

export const terminatorsOfService = (db: Db, serviceId: string): Statement => db.delete(terminators).where(eq(terminators.serviceId, serviceId));
export const terminatorsOfRouter = (db: Db, routerId: string): Statement => db.delete(terminators).where(eq(terminators.routerId, routerId));
export const terminatorsOfServiceWhere = (serviceId: string) => eq(terminators.serviceId, serviceId);
