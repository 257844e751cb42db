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
import { accessCounts, edgeRouterPolicies, edgeRouters, identities, linkGenerations, policyLinks, postureChecks, serviceEdgeRouterPolicies, servicePolicies, services } from '../db/schema/index.js';
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

/**
 * Replaces a policy's links with what its role lists match now (create, PUT, PATCH). A service policy
 * stamps the identities it matched before and matches after (service-updates).
 */
export function policyLinkStatements(db: Db, kind: PolicyKind, policyId: string, policy: PolicyShape, now: number): Statement[] {
  const out: Statement[] = [];
  if (kind === 'sp') out.push(markServicesChanged(db, now, affectedIdentities.ofPolicy(policyId)));
  out.push(db.delete(policyLinks).where(eq(policyLinks.policyId, policyId)));
  if (kind === 'sp') out.push(bumpGeneration(db));
  const type = linkType(kind, policy.type);
  for (const list of ROLE_LISTS.filter((l) => l.kind === kind)) {
    const match = entityMatch(list.role, policy.roles[list.field] ?? [], policy.semantic);
    if (!match) continue;
    const e = ENTITY_TABLES[list.role];
    out.push(db.insert(policyLinks).select(sql`SELECT ${policyId}, ${list.role}, ${q(e.id)}, ${type} FROM ${e.table} WHERE ${match}`));
  }
  if (kind === 'sp') out.push(markServicesChanged(db, now, affectedIdentities.ofPolicy(policyId)), endSessionsWithoutAccess(db, now));
  return out;
}

export function policyUnlinkStatements(db: Db, kind: PolicyKind, policyId: string, now: number): Statement[] {
  const out: Statement[] = [];
  if (kind === 'sp') out.push(markServicesChanged(db, now, affectedIdentities.ofPolicy(policyId)));
  out.push(db.delete(policyLinks).where(eq(policyLinks.policyId, policyId)), bumpGeneration(db));
  if (kind === 'sp') out.push(endSessionsWithoutAccess(db, now));
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
  if (role === 'service') out.push(markServicesChanged(db, now, affectedIdentities.reachingService(entityId)));
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

/** Restriction on a policy table: the policies whose `role` list matches the entity. */
export function policiesLinkedTo(table: PolicyTable, role: Role, entityId: string): SQL {
  return sql`${q(table.id)} IN (SELECT ${q(policyLinks.policyId)} FROM ${policyLinks} WHERE ${q(policyLinks.entityId)} = ${entityId} AND ${q(policyLinks.role)} = ${role})`;
}

/**
 * Restriction on `target`'s table: the entities sharing a policy of `types` with the entity `fromId` of
 * kind `from` — an identity's services (dial/bind), its edge routers (erp), a service's routers (serp)...
 * An EXISTS per candidate row: one probe of the primary key per policy of the source entity.
 */
/** An entity id bound now, or a placeholder bound when a prepared statement runs. */
export type BoundId = string | Placeholder;

export function reachable(target: Role, from: Role, fromId: BoundId, types: readonly LinkType[], walk: 'source' | 'candidate' = 'source'): SQL {
  const e = ENTITY_TABLES[target];
  const typeList = JSON.stringify(types);
  if (walk === 'candidate') {
    // The candidate's own policy rows, each probing the source's primary key: cheaper when the source
    // holds many policies (the worst-case identity), since the first probe usually hits.
    return sql`EXISTS (SELECT 1 FROM ${policyLinks} AS zb CROSS JOIN ${policyLinks} AS za ON za.policy_id = zb.policy_id AND za.role = ${from} AND za.entity_id = ${fromId}
      WHERE zb.entity_id = ${q(e.id)} AND zb.role = ${target} AND zb.policy_type IN (SELECT value FROM json_each(${typeList})))`;
  }
  return sql`EXISTS (SELECT 1 FROM ${policyLinks} AS za JOIN ${policyLinks} AS zb ON zb.policy_id = za.policy_id AND zb.role = ${target} AND zb.entity_id = ${q(e.id)}
    WHERE za.entity_id = ${fromId} AND za.role = ${from} AND za.policy_type IN (SELECT value FROM json_each(${typeList})))`;
}

/** Above this many policies of its own, an identity's reachable services are found from the services' side. */
const MANY_POLICIES = 32;

/**
 * Which side `reachable` should walk for an identity's services: its own policy rows when it has few
 * (an identity without policies then costs one empty index range per service), the services' rows when
 * it has many. One indexed count of at most MANY_POLICIES + 1 rows decides.
 */
export async function identityServiceWalk(db: Db, identityId: string, types: readonly LinkType[]): Promise<'source' | 'candidate'> {
  return (await identityServiceAccess(db, identityId, types)).walk;
}

/**
 * What an identity's service list needs before its page, in one statement: the walk (see
 * `identityServiceWalk`) and the exact total when a total cached at the current generation exists
 * (`reachableServiceCount` counts and caches it otherwise).
 */
export async function identityServiceAccess(db: Db, identityId: string, types: readonly LinkType[]): Promise<{ walk: 'source' | 'candidate'; cachedTotal?: number }> {
  const key = [...types].sort().join(',');
  let byTypes = accessLookups.get(db);
  if (!byTypes) accessLookups.set(db, (byTypes = new Map()));
  let lookup = byTypes.get(key);
  if (!lookup) byTypes.set(key, (lookup = prepareAccessLookup(db, types)));
  const [row] = await lookup.all({ identityId });
  const cached = row?.cached;
  return { walk: Number(row?.n ?? 0) > MANY_POLICIES ? 'candidate' : 'source', ...(cached === null || cached === undefined ? {} : { cachedTotal: Number(cached) }) };
}

/** The statement of `identityServiceAccess`, prepared once per database handle and set of types: it runs before every service page. */
function prepareAccessLookup(db: Db, types: readonly LinkType[]) {
  const identityId = sql.placeholder('identityId');
  const key = [...types].sort().join(',');
  return db
    .select({
      n: sql<number>`(SELECT count(*) FROM (SELECT 1 FROM ${policyLinks} WHERE ${q(policyLinks.entityId)} = ${identityId} AND ${q(policyLinks.role)} = 'identity' AND ${q(policyLinks.policyType)} IN (SELECT value FROM json_each(${JSON.stringify(types)})) LIMIT ${MANY_POLICIES + 1}))`,
      cached: sql<number | null>`(SELECT ${q(accessCounts.total)} FROM ${accessCounts} WHERE ${q(accessCounts.identityId)} = ${identityId} AND ${q(accessCounts.policyTypes)} = ${key} AND ${q(accessCounts.generation)} = ${currentGeneration})`,
    })
    .from(sql`(SELECT 1)`)
    // One row; LIMIT 1 lets the embedded driver read it without a row iterator.
    .limit(1)
    .prepare();
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
 * The exact number of services the identity reaches through service policies of `types`. A total cached
 * at the current generation is one indexed read; otherwise it is counted and stored with the generation
 * the count saw. Each SELECT is one statement, so the count and its generation come from one snapshot.
 */
export async function reachableServiceCount(db: Db, identityId: string, types: readonly LinkType[], walk: 'source' | 'candidate' = 'source'): Promise<number> {
  const key = [...types].sort().join(',');
  const cached = await selectRows(
    db,
    sql`SELECT ${q(accessCounts.total)} AS total FROM ${accessCounts} WHERE ${q(accessCounts.identityId)} = ${identityId} AND ${q(accessCounts.policyTypes)} = ${key} AND ${q(accessCounts.generation)} = ${currentGeneration}`,
    ['total'],
  );
  if (cached.length > 0 && cached[0].total !== null) return Number(cached[0].total);
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
