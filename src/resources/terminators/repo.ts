import { eq, sql } from 'drizzle-orm';
import { qualified as q, type Statement } from '../../crud/repo.js';
import type { Db } from '../../db/client.js';
import { allRouters } from '../../db/router-list.js';
import { services, terminators } from '../../db/schema/index.js';

/** The names of the terminator's service and router (of either kind): filter fields and entityRef names. */
export const serviceNameOfTerminator = sql<string | null>`(SELECT ${q(services.name)} FROM ${services} WHERE ${q(services.id)} = ${q(terminators.serviceId)})`;
export const routerNameOfTerminator = sql<string | null>`(SELECT ${q(allRouters.name)} FROM ${allRouters} WHERE ${q(allRouters.id)} = ${q(terminators.routerId)})`;

/** The names of the service and router, selected with each terminator for their entityRefs. */
export function terminatorExtras() {
  return { serviceName: serviceNameOfTerminator, routerName: routerNameOfTerminator };
}

/** An edge or transit router with this id exists. */
export async function routerExists(db: Db, id: string): Promise<boolean> {
  return (await db.select({ id: allRouters.id }).from(allRouters).where(eq(allRouters.id, id)).limit(1)).length > 0;
}

export async function serviceExists(db: Db, id: string): Promise<boolean> {
  return (await db.select({ id: services.id }).from(services).where(eq(services.id, id)).limit(1)).length > 0;
}

export const terminatorsOfService = (db: Db, serviceId: string): Statement => db.delete(terminators).where(eq(terminators.serviceId, serviceId));
export const terminatorsOfRouter = (db: Db, routerId: string): Statement => db.delete(terminators).where(eq(terminators.routerId, routerId));
export const terminatorsOfServiceWhere = (serviceId: string) => eq(terminators.serviceId, serviceId);
