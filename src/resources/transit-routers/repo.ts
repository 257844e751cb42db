import { and, eq, ne } from 'drizzle-orm';
import { triggerRaised, uniqueError } from '../../crud/repo.js';
import type { Db } from '../../db/client.js';
import { allRouters, ROUTER_NAME_TAKEN } from '../../db/router-list.js';

/**
 * Another router, edge or transit, already has this name: the two kinds share one name index in the
 * controller (reference model-and-policies §2.5). The store holds the rule with triggers
 * (drizzle/0019_router_list.sql); this read gives the 400 before any write.
 */
async function routerNameTaken(db: Db, name: string, exceptId?: string): Promise<boolean> {
  const rows = await db
    .select({ id: allRouters.id })
    .from(allRouters)
    .where(and(eq(allRouters.name, name), exceptId === undefined ? undefined : ne(allRouters.id, exceptId)))
    .limit(1);
  return rows.length > 0;
}

/** 400 when another router, of either kind, has this name. */
export async function checkRouterName(db: Db, name: string | undefined, exceptId?: string): Promise<void> {
  if (name !== undefined && (await routerNameTaken(db, name, exceptId))) throw uniqueError('name', name);
}

/** Runs a router write; a name a router of the other kind took concurrently is the same 400 as the check's. */
export async function mappingRouterName<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (triggerRaised(e, ROUTER_NAME_TAKEN)) throw uniqueError('name', name ?? '');
    throw e;
  }
}
