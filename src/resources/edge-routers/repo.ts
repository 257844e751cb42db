import { and, eq, ne, sql, type SQL } from 'drizzle-orm';
import { compileRoleFilter } from '../../crud/list-query.js';
import { qualified as q, type Statement } from '../../crud/repo.js';
import type { Db } from '../../db/client.js';
import { edgeRouterPolicies, edgeRouters, identities } from '../../db/schema/index.js';
import { entityLinkStatements, entityRemovalStatements, policyLinkStatements, policyUnlinkStatements } from '../../policy/repo.js';
import { identityCascade } from '../identities/repo.js';

/** The `roleFilter` / `roleSemantic` pre-selection of the edge-router list (§3.5). */
export function edgeRouterRoleFilter(roleFilter: readonly string[] | undefined, roleSemantic: string | undefined): SQL | undefined {
  return compileRoleFilter(roleFilter, roleSemantic, edgeRouters.roleAttributes, edgeRouters.id);
}

const ROUTER_TYPE = 'Router';

/** The system edge router policy of a tunneler-enabled router (reference model-and-policies §2.9). */
export function systemPolicyName(routerId: string): string {
  return `edge-router-${routerId}-system`;
}

/** The router's name as the batch has written it (the router row comes first in its batch). */
function routerName(routerId: string): SQL<string> {
  return sql<string>`(SELECT ${q(edgeRouters.name)} FROM ${edgeRouters} WHERE ${q(edgeRouters.id)} = ${routerId})`;
}

/**
 * A tunneler-enabled router's identity and system policy (§9.2), in the router's own batch, after its row:
 * the identity (id = the router id, the router's name, type Router, not admin) and the policy are inserted
 * unless they exist, the identity takes the router's current name, and the links of both are recomputed
 * from what is stored. Every statement reads the state the batch sees, so whatever order concurrent
 * writes of the router commit in, its flag, its identity and its policy agree.
 */
export function tunnelerOnStatements(db: Db, routerId: string, now: number): Statement[] {
  const ref = `@${routerId}`;
  const roles = JSON.stringify([ref]);
  return [
    db
      .insert(identities)
      .values({ id: routerId, createdAt: now, updatedAt: now, name: routerName(routerId), typeId: ROUTER_TYPE, isAdmin: false })
      .onConflictDoNothing({ target: identities.id }),
    tunnelerRenameStatement(db, routerId, now),
    db
      .insert(edgeRouterPolicies)
      .values({ id: routerId, createdAt: now, updatedAt: now, isSystem: true, name: systemPolicyName(routerId), semantic: 'AnyOf', identityRoles: roles, edgeRouterRoles: roles })
      .onConflictDoNothing({ target: edgeRouterPolicies.id }),
    ...entityLinkStatements(db, 'identity', routerId, sql`(SELECT ${q(identities.roleAttributes)} FROM ${identities} WHERE ${q(identities.id)} = ${routerId})`, now),
    ...policyLinkStatements(db, 'erp', routerId, { semantic: 'AnyOf', roles: { identityRoles: [ref], edgeRouterRoles: [ref] } }, now),
  ];
}

/** The identity follows the router's name (§9.2) while it exists. */
export function tunnelerRenameStatement(db: Db, routerId: string, now: number): Statement {
  return db
    .update(identities)
    .set({ name: routerName(routerId), updatedAt: now })
    .where(and(eq(identities.id, routerId), eq(identities.typeId, ROUTER_TYPE), ne(identities.name, routerName(routerId))));
}

/**
 * No tunneler: the router identity goes as any deleted identity does (sessions, enrollments, links, `@id`
 * entries in policies) and the system policy with its links. Harmless when neither exists.
 */
export function tunnelerOffStatements(db: Db, routerId: string, now: number): Statement[] {
  return [
    ...identityCascade(db, routerId),
    ...entityRemovalStatements(db, 'identity', routerId, now),
    db.delete(identities).where(and(eq(identities.id, routerId), eq(identities.typeId, ROUTER_TYPE))),
    ...policyUnlinkStatements(db, 'erp', routerId, now),
    db.delete(edgeRouterPolicies).where(and(eq(edgeRouterPolicies.id, routerId), eq(edgeRouterPolicies.isSystem, true))),
  ];
}

/** Another identity already has this name (a tunneler-enabled router's identity takes the router's name). */
export async function identityNameTaken(db: Db, name: string, routerId: string): Promise<boolean> {
  const rows = await db
    .select({ id: identities.id })
    .from(identities)
    .where(and(eq(identities.name, name), ne(identities.id, routerId)))
    .limit(1);
  return rows.length > 0;
}

export async function edgeRouterExists(db: Db, id: string): Promise<boolean> {
  return (await db.select({ id: edgeRouters.id }).from(edgeRouters).where(eq(edgeRouters.id, id)).limit(1)).length > 0;
}
