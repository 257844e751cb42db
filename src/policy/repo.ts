/**
 * The denormalised policy links (docs/adr/0006-policy-links.md): for every policy, the entities each of
 * its role lists matches, in `policy_links`. Every write that can change a match appends the statements
 * built here to its own batch, so the links are exact the moment the write is visible:
 * - a policy's create/update recomputes its rows from the entity tables (one INSERT … SELECT per list);
 * - an entity's create or attribute change recomputes its rows from the policy tables;
 * - a delete removes the rows (and, for an entity, its `@id` entries in every policy, §3.8).
 * Role lists travel as one JSON parameter each, so no statement nears D1's 100 bound parameters.
 */
import { and, eq, inArray, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { ResolvedListQuery } from '../crud/list-query.js';
import { listPage, qualified as q, type Statement } from '../crud/repo.js';
import { selectRows, type Db } from '../db/client.js';
import { accessCounts, edgeRouterPolicies, edgeRouters, identities, linkGenerations, policyLinks, postureChecks, serviceEdgeRouterPolicies, serviceGrantSets, servicePolicies, services } from '../db/schema/index.js';
import { roleAttrs, roleIds, type Semantic } from './roles.js';
import { affectedIdentities, endSessionsWithoutAccess, markServicesChanged } from './service-updates-repo.js';

export type Role = 'identity' | 'service' | 'router' | 'postureCheck';
export type PolicyKind = 'sp' | 'erp' | 'serp';
type LinkType = 'dial' | 'bind' | 'erp' | 'serp';

type PolicyTable = typeof servicePolicies | typeof edgeRouterPolicies | typeof serviceEdgeRouterPolicies;

/** One role list of a policy kind: the column holding it and the kind of entity it selects. */
interface RoleList {
  kind: PolicyKind;
  table: PolicyTable;
  column: SQLiteColumn;
  role: Role;
  /** The policy's field name (`identityRoles`), as in 400 causes and bodies. */
  field: 'identityRoles' | 'serviceRoles' | 'edgeRouterRoles' | 'postureCheckRoles';
}

export const ROLE_LISTS: readonly RoleList[] = [
  { kind: 'sp', table: servicePolicies, column: servicePolicies.identityRoles, role: 'identity', field: 'identityRoles' },
  { kind: 'sp', table: servicePolicies, column: servicePolicies.serviceRoles, role: 'service', field: 'serviceRoles' },
  { kind: 'sp', table: servicePolicies, column: servicePolicies.postureCheckRoles, role: 'postureCheck', field: 'postureCheckRoles' },
  { kind: 'erp', table: edgeRouterPolicies, column: edgeRouterPolicies.identityRoles, role: 'identity', field: 'identityRoles' },
  { kind: 'erp', table: edgeRouterPolicies, column: edgeRouterPolicies.edgeRouterRoles, role: 'router', field: 'edgeRouterRoles' },
  { kind: 'serp', table: serviceEdgeRouterPolicies, column: serviceEdgeRouterPolicies.serviceRoles, role: 'service', field: 'serviceRoles' },
  { kind: 'serp', table: serviceEdgeRouterPolicies, column: serviceEdgeRouterPolicies.edgeRouterRoles, role: 'router', field: 'edgeRouterRoles' },
];

export const ENTITY_TABLES = {
  identity: { table: identities, id: identities.id, attrs: identities.roleAttributes, name: identities.name },
  service: { table: services, id: services.id, attrs: services.roleAttributes, name: services.name },
  router: { table: edgeRouters, id: edgeRouters.id, attrs: edgeRouters.roleAttributes, name: edgeRouters.name },
  postureCheck: { table: postureChecks, id: postureChecks.id, attrs: postureChecks.roleAttributes, name: postureChecks.name },
} as const;

/** Roles whose links decide service access: their changes move the service-access generation. */
const accessRole = (role: Role) => role === 'identity' || role === 'service';

/** The policy as its links need it. */
export interface PolicyShape {
  semantic: Semantic;
  /** Service policies only. */
  type?: 'Dial' | 'Bind';
  roles: Partial<Record<string, string[]>>;
}

function linkType(kind: PolicyKind, type: PolicyShape['type']): LinkType {
  return kind === 'sp' ? (type === 'Bind' ? 'bind' : 'dial') : kind;
}

/** §3.2 for a known role list against every row of an entity table; undefined when nothing can match. */
export function entityMatch(role: Role, roles: readonly string[], semantic: Semantic): SQL | undefined {
  const e = ENTITY_TABLES[role];
  const attrs = roleAttrs(roles);
  const ids = roleIds(roles);
  if (attrs.includes('all')) return sql`1 = 1`;
  const parts: SQL[] = [];
  if (ids.length > 0) parts.push(sql`${q(e.id)} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`);
  if (attrs.length > 0) {
    const want = JSON.stringify(attrs);
    parts.push(
      semantic === 'AnyOf'
        ? sql`EXISTS (SELECT 1 FROM json_each(${q(e.attrs)}) AS zh WHERE zh.value IN (SELECT value FROM json_each(${want})))`
        : sql`NOT EXISTS (SELECT 1 FROM json_each(${want}) AS zw WHERE zw.value NOT IN (SELECT value FROM json_each(${q(e.attrs)})))`,
    );
  }
  return parts.length > 0 ? sql`(${sql.join(parts, sql` OR `)})` : undefined;
}

/**
 * §3.2 for a known entity (id, attributes) against every policy of a table, reading the role column. The
 * attributes are a list, or an expression reading the entity's stored list (a JSON array).
 */
function policyMatch(list: RoleList, entityId: string, attrs: readonly string[] | SQL): SQL {
  const roles = q(list.column);
  const semantic = q(list.table.semantic);
  const have = Array.isArray(attrs) ? JSON.stringify(attrs) : (attrs as SQL);
  return sql`(EXISTS (SELECT 1 FROM json_each(${roles}) AS zr WHERE zr.value = '#all' OR zr.value = ${'@' + entityId})
    OR (${semantic} = 'AnyOf' AND EXISTS (SELECT 1 FROM json_each(${roles}) AS zr WHERE substr(zr.value, 1, 1) = '#' AND substr(zr.value, 2) IN (SELECT value FROM json_each(${have}))))
    OR (${semantic} = 'AllOf' AND EXISTS (SELECT 1 FROM json_each(${roles}) AS zr WHERE substr(zr.value, 1, 1) = '#')
        AND NOT EXISTS (SELECT 1 FROM json_each(${roles}) AS zr WHERE substr(zr.value, 1, 1) = '#' AND substr(zr.value, 2) NOT IN (SELECT value FROM json_each(${have})))))`;
}

/** The link type a policy row gives its links: the service policy's type, or the kind. */
function linkTypeColumn(list: RoleList): SQL {
  return list.kind === 'sp' ? sql`lower(${q(servicePolicies.type)})` : sql`${list.kind}`;
}

/** A service's Dial/Bind policies from its links, as `service_grant_sets` keeps them: `[[policyId, type], ...]`. */
export function grantSetOf(serviceId: SQL | BoundId): SQL<string> {
  return sql<string>`(SELECT json_group_array(json_array(zb.policy_id, zb.policy_type)) FROM ${policyLinks} AS zb
    WHERE zb.entity_id = ${serviceId} AND zb.role = 'service' AND zb.policy_type IN ('bind', 'dial'))`;
}

/**
 * The grant sets a change of the policy's service links makes stale: those of the services linked before
 * (dropped here, before the links go) and after (`grantSetsAfterPolicy`). Each set is written again from
 * the links as the batch leaves them, so it never depends on what a statement read before.
 */
function grantSetsBeforePolicy(db: Db, policyId: string): Statement {
  return db.delete(serviceGrantSets).where(sql`${q(serviceGrantSets.serviceId)} IN (SELECT ${q(policyLinks.entityId)} FROM ${policyLinks} WHERE ${q(policyLinks.policyId)} = ${policyId} AND ${q(policyLinks.role)} = 'service')`);
}

/** After the policy's links are written: its services' sets again, then every service lacking one (those dropped before). */
function grantSetsAfterPolicy(db: Db, policyId: string): Statement[] {
  return [grantSetsBeforePolicy(db, policyId), ...grantSetsOf(db, sql`NOT EXISTS (SELECT 1 FROM ${serviceGrantSets} WHERE ${q(serviceGrantSets.serviceId)} = ${q(services.id)})`)];
}

/** The grant sets of the services `which` selects, written again from their links. */
export function grantSetsOf(db: Db, which: SQL): Statement[] {
  return [
    db.delete(serviceGrantSets).where(sql`${q(serviceGrantSets.serviceId)} IN (SELECT ${q(services.id)} FROM ${services} WHERE ${which})`),
    db.insert(serviceGrantSets).select(sql`SELECT ${q(services.id)}, ${grantSetOf(q(services.id))} FROM ${services} WHERE ${which}`),
  ];
}

/**
 * Replaces a policy's links with what its role lists match now (create, PUT, PATCH). A service policy
 * stamps the identities it matched before and matches after (service-updates).
 */
export function policyLinkStatements(db: Db, kind: PolicyKind, policyId: string, policy: PolicyShape, now: number): Statement[] {
  const out: Statement[] = [];
  if (kind === 'sp') out.push(markServicesChanged(db, now, affectedIdentities.ofPolicy(policyId)), grantSetsBeforePolicy(db, policyId));
  out.push(db.delete(policyLinks).where(eq(policyLinks.policyId, policyId)));
  if (kind === 'sp') out.push(bumpGeneration(db));
  const type = linkType(kind, policy.type);
  for (const list of ROLE_LISTS.filter((l) => l.kind === kind)) {
    const match = entityMatch(list.role, policy.roles[list.field] ?? [], policy.semantic);
    if (!match) continue;
    const e = ENTITY_TABLES[list.role];
    out.push(db.insert(policyLinks).select(sql`SELECT ${policyId}, ${list.role}, ${q(e.id)}, ${type} FROM ${e.table} WHERE ${match}`));
  }
  if (kind === 'sp') out.push(...grantSetsAfterPolicy(db, policyId), markServicesChanged(db, now, affectedIdentities.ofPolicy(policyId)), endSessionsWithoutAccess(db, now));
  return out;
}

export function policyUnlinkStatements(db: Db, kind: PolicyKind, policyId: string, now: number): Statement[] {
  const out: Statement[] = [];
  if (kind === 'sp') out.push(markServicesChanged(db, now, affectedIdentities.ofPolicy(policyId)), grantSetsBeforePolicy(db, policyId));
  out.push(db.delete(policyLinks).where(eq(policyLinks.policyId, policyId)), bumpGeneration(db));
  if (kind === 'sp') out.push(...grantSetsAfterPolicy(db, policyId), endSessionsWithoutAccess(db, now));
  return out;
}

/**
 * Replaces an entity's links with the policies matching its id and attributes now (create, attribute
 * change). The identities whose service lists this may change are stamped (service-updates).
 */
export function entityLinkStatements(db: Db, role: Role, entityId: string, attrs: readonly string[] | SQL, now: number): Statement[] {
  const out: Statement[] = [];
  if (role === 'service') out.push(markServicesChanged(db, now, affectedIdentities.reachingService(entityId)));
  out.push(db.delete(policyLinks).where(and(eq(policyLinks.entityId, entityId), eq(policyLinks.role, role))));
  if (accessRole(role)) out.push(bumpGeneration(db));
  for (const list of ROLE_LISTS.filter((l) => l.role === role)) {
    out.push(db.insert(policyLinks).select(sql`SELECT ${q(list.table.id)}, ${role}, ${entityId}, ${linkTypeColumn(list)} FROM ${list.table} WHERE ${policyMatch(list, entityId, attrs)}`));
  }
  if (role === 'service') out.push(...grantSetsOf(db, sql`${q(services.id)} = ${entityId}`), markServicesChanged(db, now, affectedIdentities.reachingService(entityId)));
  if (role === 'identity') out.push(markServicesChanged(db, now, affectedIdentities.one(entityId)));
  if (accessRole(role)) out.push(endSessionsWithoutAccess(db, now));
  return out;
}

/**
 * A deleted entity leaves no links, and its `@id` entries leave every policy that names it (§3.8); the
 * rewritten lists stay sorted sets.
 */
export function entityRemovalStatements(db: Db, role: Role, entityId: string, now: number): Statement[] {
  const out: Statement[] = [];
  if (role === 'service') out.push(markServicesChanged(db, now, affectedIdentities.reachingService(entityId)));
  out.push(db.delete(policyLinks).where(and(eq(policyLinks.entityId, entityId), eq(policyLinks.role, role))));
  if (accessRole(role)) out.push(bumpGeneration(db));
  if (role === 'identity') out.push(db.delete(accessCounts).where(eq(accessCounts.identityId, entityId)));
  if (role === 'service') out.push(db.delete(serviceGrantSets).where(eq(serviceGrantSets.serviceId, entityId)));
  const ref = '@' + entityId;
  for (const list of ROLE_LISTS.filter((l) => l.role === role)) {
    const col = sql.identifier(list.column.name);
    // Statements of a D1 batch must be prepared queries (a raw statement with parameters is not), hence the builder.
    const table = list.table as typeof servicePolicies;
    out.push(
      db
        .update(table)
        .set({ [list.field]: sql`(SELECT json_group_array(value) FROM (SELECT value FROM json_each(${col}) WHERE value <> ${ref} ORDER BY value))` })
        .where(sql`EXISTS (SELECT 1 FROM json_each(${col}) WHERE value = ${ref})`),
    );
  }
  return out;
}

/** Ids among `ids` with no entity of the kind (the `@id` validation of policy writes). */
export async function missingEntityIds(db: Db, role: Role, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const e = ENTITY_TABLES[role];
  const found = new Set<string>();
  // At most 90 per statement: D1 allows 100 bound parameters.
  for (let i = 0; i < ids.length; i += 90) {
    const rows = await db.select({ id: e.id }).from(e.table).where(inArray(e.id, ids.slice(i, i + 90)));
    for (const r of rows) found.add(r.id as string);
  }
  return ids.filter((id) => !found.has(id));
}

/** Restriction: the entities of `role` a policy matches. */
export function linkedToPolicy(role: Role, policyId: string): SQL {
  const e = ENTITY_TABLES[role];
  return sql`${q(e.id)} IN (SELECT ${q(policyLinks.entityId)} FROM ${policyLinks} WHERE ${q(policyLinks.policyId)} = ${policyId} AND ${q(policyLinks.role)} = ${role})`;
}

/** The ids of the entities of `role` the policy in `policyId` matches, as a `value` column (filter sets). */
export function entitiesOfPolicy(policyId: SQLiteColumn, role: Role): SQL {
  return sql`SELECT ${q(policyLinks.entityId)} AS value FROM ${policyLinks} WHERE ${q(policyLinks.policyId)} = ${q(policyId)} AND ${q(policyLinks.role)} = ${role}`;
}

/** Restriction on a policy table: the policies whose `role` list matches the entity. */
export function policiesLinkedTo(table: PolicyTable, role: Role, entityId: string): SQL {
  return sql`${q(table.id)} IN (SELECT ${q(policyLinks.policyId)} FROM ${policyLinks} WHERE ${q(policyLinks.entityId)} = ${entityId} AND ${q(policyLinks.role)} = ${role})`;
}

/** An entity id bound now, or a placeholder bound when a prepared statement runs. */
export type BoundId = string | Placeholder;

/**
 * How `reachable` finds the entities sharing a policy with the source entity:
 * - `source`: per candidate row, the source's policy rows, each probing the primary key for the candidate;
 * - `listed`: per candidate row, its own policy rows, each looked up in the source's policies, read once
 *   per statement into an in-memory index (an uncorrelated list; `+` keeps it from driving the search).
 *   A sequential walk that stops at the first hit: the cheapest when the source reaches a good share of
 *   the candidates, the dearest when it reaches few (every row of every unreached candidate is checked);
 * - `policies`: the source's policies' own links, gathered and sorted once, then each looked up by id.
 *   Cost follows the links, not the candidates: the cheapest for a small reach.
 */
export type Walk = 'source' | 'listed' | 'policies';

/**
 * Restriction on `target`'s table: the entities sharing a policy of `types` with the entity `fromId` of
 * kind `from` — an identity's services (dial/bind), its edge routers (erp), a service's routers (serp)...
 */
export function reachable(target: Role, from: Role, fromId: BoundId, types: readonly LinkType[], walk: Walk = 'source'): SQL {
  const e = ENTITY_TABLES[target];
  const typeList = JSON.stringify(types);
  const sourcePolicies = sql`SELECT za.policy_id FROM ${policyLinks} AS za WHERE za.entity_id = ${fromId} AND za.role = ${from} AND za.policy_type IN (SELECT value FROM json_each(${typeList}))`;
  if (walk === 'listed') {
    return sql`EXISTS (SELECT 1 FROM ${policyLinks} AS zb WHERE zb.entity_id = ${q(e.id)} AND zb.role = ${target} AND zb.policy_type IN (SELECT value FROM json_each(${typeList}))
      AND +zb.policy_id IN (${sourcePolicies}))`;
  }
  if (walk === 'policies') {
    return sql`${q(e.id)} IN (SELECT zb.entity_id FROM ${policyLinks} AS za JOIN ${policyLinks} AS zb ON zb.policy_id = za.policy_id AND zb.role = ${target}
      WHERE za.entity_id = ${fromId} AND za.role = ${from} AND za.policy_type IN (SELECT value FROM json_each(${typeList})))`;
  }
  return sql`EXISTS (SELECT 1 FROM ${policyLinks} AS za JOIN ${policyLinks} AS zb ON zb.policy_id = za.policy_id AND zb.role = ${target} AND zb.entity_id = ${q(e.id)}
    WHERE za.entity_id = ${fromId} AND za.role = ${from} AND za.policy_type IN (SELECT value FROM json_each(${typeList})))`;
}

/** Up to this many policies of its own, an identity's exact service total is counted from its policies' links. */
const FEW_POLICIES = 32;
/** Up to this many reachable services, an identity's page is read from its policies' links. */
const SMALL_REACH = 500;

/** How an identity's service list is read: no query at all when it holds no policy of the types. */
export type ServiceWalk = Walk | 'none';

/**
 * The walk for an identity's services (see `Walk`): none without a policy; `policies` when its total is
 * known to be small, or, to count, when it holds few policies (the links to gather are few);
 * `listed` otherwise.
 */
function serviceWalk(policyCount: number, total: number | undefined, purpose: 'page' | 'count'): ServiceWalk {
  if (policyCount === 0) return 'none';
  if (purpose === 'count') return policyCount <= FEW_POLICIES ? 'policies' : 'listed';
  return total !== undefined && total <= SMALL_REACH ? 'policies' : 'listed';
}

/** The walk that counts an identity's reachable services (checkers, and a total not cached). */
export async function identityServiceWalk(db: Db, identityId: string, types: readonly LinkType[]): Promise<ServiceWalk> {
  return serviceWalk((await identityServiceAccess(db, identityId, types)).policyCount, undefined, 'count');
}

/**
 * How many policies of the types an identity holds (at most FEW_POLICIES + 1 counted), its total cached at
 * the current generation, and its Dial/Bind policies (a JSON array of ids), which its service page
 * intersects with each service's grant set.
 */
export interface IdentityServiceAccess {
  policyCount: number;
  cachedTotal?: number;
  viewerPolicies: string | null;
}

/**
 * The columns `identityServiceAccess` reads, for the identity given as an SQL value: its own statement's
 * placeholder, or the session check's caller (`GET /services` rides on it, src/resources/services/repo.ts).
 */
export function identityAccessColumns(identityId: SQL, types: readonly LinkType[]) {
  const key = [...types].sort().join(',');
  return {
    n: sql<number>`(SELECT count(*) FROM (SELECT 1 FROM ${policyLinks} WHERE ${q(policyLinks.entityId)} = ${identityId} AND ${q(policyLinks.role)} = 'identity' AND ${q(policyLinks.policyType)} IN (SELECT value FROM json_each(${JSON.stringify(types)})) LIMIT ${FEW_POLICIES + 1}))`,
    cached: sql<number | null>`(SELECT ${q(accessCounts.total)} FROM ${accessCounts} WHERE ${q(accessCounts.identityId)} = ${identityId} AND ${q(accessCounts.policyTypes)} = ${key} AND ${q(accessCounts.generation)} = ${currentGeneration})`,
    viewer: identityGrantPolicyList(identityId),
  };
}

/** The ids of the identity's Dial and Bind service policies, as a sub-query. */
export function identityGrantPolicies(identityId: SQL | BoundId): SQL {
  return sql`SELECT za.policy_id FROM ${policyLinks} AS za WHERE za.entity_id = ${identityId} AND za.role = 'identity' AND za.policy_type IN ('bind', 'dial')`;
}

/** The same ids as one JSON array (what a service view intersects each service's grant set with). */
export function identityGrantPolicyList(identityId: SQL | BoundId): SQL<string> {
  return sql<string>`(SELECT json_group_array(za.policy_id) FROM (${identityGrantPolicies(identityId)}) AS za)`;
}

/** `identityAccessColumns`' values as `IdentityServiceAccess`. */
export function identityAccessOf(n: unknown, cached: unknown, viewer: unknown): IdentityServiceAccess {
  const viewerPolicies = typeof viewer === 'string' ? viewer : null;
  return cached === null || cached === undefined ? { policyCount: Number(n ?? 0), viewerPolicies } : { policyCount: Number(n ?? 0), cachedTotal: Number(cached), viewerPolicies };
}

/**
 * What an identity's service list needs before its page, in one statement: how many policies of the types
 * it holds and the exact total when a total cached at the current generation exists (`identityServiceReach`
 * counts and caches it otherwise).
 */
export async function identityServiceAccess(db: Db, identityId: string, types: readonly LinkType[]): Promise<IdentityServiceAccess> {
  const key = [...types].sort().join(',');
  let byTypes = accessLookups.get(db);
  if (!byTypes) accessLookups.set(db, (byTypes = new Map()));
  let lookup = byTypes.get(key);
  if (!lookup) byTypes.set(key, (lookup = prepareAccessLookup(db, types)));
  const [row] = await lookup.all({ identityId });
  return identityAccessOf(row?.n, row?.cached, row?.viewer);
}

/**
 * An identity's service total and the walk its page takes: the cached total when there is one, else
 * counted (and cached); no policy means no service, without reading further; and its Dial/Bind policies
 * for the page's grants. `known`: the access as another statement already read it.
 */
export async function identityServiceReach(db: Db, identityId: string, types: readonly LinkType[], known?: IdentityServiceAccess): Promise<{ total: number; walk: ServiceWalk; viewerPolicies: string | null }> {
  const { policyCount, cachedTotal, viewerPolicies } = known ?? (await identityServiceAccess(db, identityId, types));
  if (policyCount === 0) return { total: 0, walk: 'none', viewerPolicies };
  const total = cachedTotal ?? (await countReachableServices(db, identityId, types, serviceWalk(policyCount, undefined, 'count')));
  return { total, walk: serviceWalk(policyCount, total, 'page'), viewerPolicies };
}

/** The statement of `identityServiceAccess`, prepared once per database handle and set of types: it runs before every service page. */
function prepareAccessLookup(db: Db, types: readonly LinkType[]) {
  return (
    db
      .select(identityAccessColumns(sql`${sql.placeholder('identityId')}`, types))
      .from(sql`(SELECT 1)`)
      // One row; LIMIT 1 lets the embedded driver read it without a row iterator.
      .limit(1)
      .prepare()
  );
}
const accessLookups = new WeakMap<Db, Map<string, ReturnType<typeof prepareAccessLookup>>>();

/** Whether the two entities share a policy of the type (policy advice, permissions). */
export async function shareLink(db: Db, aRole: Role, aId: string, bRole: Role, bId: string, type: LinkType): Promise<boolean> {
  const rows = await db.values(
    sql`SELECT 1 AS n FROM ${policyLinks} AS za JOIN ${policyLinks} AS zb ON zb.policy_id = za.policy_id AND zb.role = ${bRole} AND zb.entity_id = ${bId} WHERE za.entity_id = ${aId} AND za.role = ${aRole} AND za.policy_type = ${type} LIMIT 1`,
  );
  return rows.length > 0;
}

/** The `*RolesDisplay` of a role list column: `#attr` as itself, `@id` as `@<name>`, unresolved ids omitted (§3.1). */
export function rolesDisplay(column: SQLiteColumn, role: Role): SQL<string | null> {
  const e = ENTITY_TABLES[role];
  return sql<string | null>`(SELECT json_group_array(json_object('role', zd.value, 'name', CASE WHEN substr(zd.value, 1, 1) = '@' THEN '@' || (SELECT ${q(e.name)} FROM ${e.table} WHERE ${q(e.id)} = substr(zd.value, 2)) ELSE zd.value END))
    FROM json_each(${q(column)}) AS zd WHERE substr(zd.value, 1, 1) = '#' OR EXISTS (SELECT 1 FROM ${e.table} WHERE ${q(e.id)} = substr(zd.value, 2)))`;
}

/** The `id` field of a role-attribute list: the attribute text (§3.4). */
const ATTR_VALUE = sql`${sql.identifier('attr')}.${sql.identifier('value')}`;
export const roleAttributeFields = { id: { type: 'string' as const, sql: ATTR_VALUE } };

/** Distinct role attributes of every entity of the kind, filtered, sorted and paged, with their total (§3.4). */
export async function listRoleAttributesOf(db: Db, role: Role, q: ResolvedListQuery): Promise<{ values: string[]; total: number }> {
  const e = ENTITY_TABLES[role];
  const source = sql`(SELECT DISTINCT ${sql.identifier('ra')}.${sql.identifier('value')} AS value FROM ${e.table}, json_each(${e.attrs}) AS ${sql.identifier('ra')}) AS ${sql.identifier('attr')}`;
  const { rows, total } = await listPage(
    (p) => db.select({ value: sql<string>`${ATTR_VALUE}` }).from(source).where(q.where).orderBy(...q.orderBy).limit(p.limit).offset(p.offset),
    () => db.select({ n: sql<number>`count(*)` }).from(source).where(q.where),
    q,
  );
  return { values: rows.map((r) => r.value), total };
}

const GENERATION_ID = 'service-access';

/** Moves the service-access generation forward (every cached total computed before is stale from then on). */
export function bumpGeneration(db: Db): Statement {
  return db.insert(linkGenerations).values({ id: GENERATION_ID, generation: 1 }).onConflictDoUpdate({ target: linkGenerations.id, set: { generation: sql`${linkGenerations.generation} + 1` } });
}

export const currentGeneration = sql`coalesce((SELECT ${q(linkGenerations.generation)} FROM ${linkGenerations} WHERE ${q(linkGenerations.id)} = ${GENERATION_ID}), 0)`;

/**
 * Counts the services the identity reaches through service policies of `types` and caches the total with
 * the generation the count saw: both come from one SELECT, so from one snapshot.
 */
async function countReachableServices(db: Db, identityId: string, types: readonly LinkType[], walk: ServiceWalk): Promise<number> {
  if (walk === 'none') return 0;
  const key = [...types].sort().join(',');
  const [counted] = await selectRows(
    db,
    sql`SELECT ${currentGeneration} AS generation, (SELECT count(*) FROM ${services} WHERE ${reachable('service', 'identity', identityId, types, walk)}) AS total,
      EXISTS (SELECT 1 FROM ${identities} WHERE ${q(identities.id)} = ${identityId}) AS known`,
    ['generation', 'total', 'known'],
  );
  const generation = Number(counted.generation);
  const total = Number(counted.total);
  if (!counted.known) return total;
  // A newer total written meanwhile wins; an older one is replaced.
  await db
    .insert(accessCounts)
    .values({ identityId, policyTypes: key, generation, total })
    .onConflictDoUpdate({ target: [accessCounts.identityId, accessCounts.policyTypes], set: { generation, total }, setWhere: sql`${accessCounts.generation} <= ${generation}` });
  return total;
}
