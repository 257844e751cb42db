import { and, asc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { compileRoleFilter } from '../../crud/list-query.js';
import { qualified as q, type Statement } from '../../crud/repo.js';
import { preparedPer, type Db } from '../../db/client.js';
import { flatSelection, type PendingRead, type ReadAhead } from '../../db/list-page.js';
import type { ServiceRow } from './entity.js';
import type { SelectedFields } from 'drizzle-orm/sqlite-core';
import { postureChecksExistSql, postureStateColumn } from '../../posture/repo.js';
import type { SessionIdentity, SessionRider } from '../../auth/session-repo.js';
import { identityAccessColumns, identityAccessOf, identityGrantPolicies, identityGrantPolicyList, reachable, type BoundId, type IdentityServiceAccess, type ServiceWalk, type Walk } from '../../policy/repo.js';
import { apiSessions, configs, configTypes, identities, identityServiceConfigs, policyLinks, serviceConfigs, serviceGrantSets, services } from '../../db/schema/index.js';

/** The ids of the configs attached to the service, as a `value` column (the `configs` filter set). */
export const configIdsOfService = sql`SELECT ${q(serviceConfigs.configId)} AS value FROM ${serviceConfigs} WHERE ${q(serviceConfigs.serviceId)} = ${q(services.id)}`;

/**
 * Selected with each service row: its attached configs (type id and name, config id and data) and, for
 * the identity whose view is rendered, its config overrides and what it may do: the service's Dial/Bind
 * policies (`service_grant_sets`, one value) and the identity's own (an uncorrelated list, which SQLite
 * reads once per statement), intersected when rendered, once per distinct set (`PageAccess`). Walking
 * each service's link rows for this cost half of a 500-service page of the worst-case identity.
 */
export function serviceExtras(identityId: BoundId): ReturnType<typeof pageExtras> & { viewerPolicies: SQL<string> } {
  return {
    ...pageExtras(identityId),
    viewerPolicies: identityGrantPolicyList(identityId),
  };
}

/**
 * `serviceExtras` without the viewer's policies: the granted page reads them once, before it, with the
 * identity's access (`identityServiceReach`), instead of copying them into each of its (up to 500) rows.
 */
function pageExtras(identityId: BoundId) {
  const attached = sql<string | null>`(SELECT json_group_array(json_object('typeId', ${q(serviceConfigs.configTypeId)}, 'typeName', ${q(configTypes.name)}, 'configId', ${q(serviceConfigs.configId)}, 'data', json(${q(configs.data)})))
    FROM ${serviceConfigs} JOIN ${configs} ON ${q(configs.id)} = ${q(serviceConfigs.configId)} JOIN ${configTypes} ON ${q(configTypes.id)} = ${q(serviceConfigs.configTypeId)}
    WHERE ${q(serviceConfigs.serviceId)} = ${q(services.id)})`;
  const overrides = sql<string | null>`(SELECT json_group_array(json_object('typeId', ${q(identityServiceConfigs.configTypeId)}, 'typeName', ${q(configTypes.name)}, 'configId', ${q(identityServiceConfigs.configId)}, 'data', json(${q(configs.data)})))
    FROM ${identityServiceConfigs} JOIN ${configs} ON ${q(configs.id)} = ${q(identityServiceConfigs.configId)} JOIN ${configTypes} ON ${q(configTypes.id)} = ${q(identityServiceConfigs.configTypeId)}
    WHERE ${q(identityServiceConfigs.serviceId)} = ${q(services.id)} AND ${q(identityServiceConfigs.identityId)} = ${identityId})`;
  return {
    attached,
    overrides,
    grantSet: sql<string | null>`(SELECT ${q(serviceGrantSets.grants)} FROM ${serviceGrantSets} WHERE ${q(serviceGrantSets.serviceId)} = ${q(services.id)})`,
    postureChecksExist: postureChecksExistSql,
  };
}
/**
 * The page SDKs ask for (`GET /services?limit=&offset=`: no filter, sort or roleFilter) of the services a
 * Dial or Bind policy grants the identity, in the list's default order, with the view's extras. Prepared
 * once per database handle and walk: building this statement cost as much as running it.
 */
function prepareGrantedPage(db: Db, types: readonly ('dial' | 'bind')[], walk: Walk) {
  const identityId = sql.placeholder('identityId');
  // Rows come back as value arrays mapped by the selection's own decoders: drizzle's row mapping checked
  // every value's type again, a millisecond on a page of 500.
  const { fields, map } = flatSelection({ row: services, ...pageExtras(identityId) });
  const query = db
    .select(fields as SelectedFields)
    .from(services)
    .where(reachable('service', 'identity', identityId, types, walk))
    .orderBy(asc(services.id))
    .limit(sql.placeholder('limit'))
    .offset(sql.placeholder('offset'))
    .prepare();
  return { query, map: map as (values: unknown[]) => GrantedServiceRow };
}
type GrantedPage = ReturnType<typeof prepareGrantedPage>;
const grantedPages = new WeakMap<Db, Map<string, GrantedPage>>();

/** A row of the granted page: the service and its extras, as the general list selects them but the viewer's policies. */
export type GrantedServiceRow = { row: ServiceRow } & Omit<ServiceExtraValues, 'viewerPolicies'>;

/** One page of `prepareGrantedPage`; `limit` -1 for no limit. */
export async function grantedServicePage(db: Db, identityId: string, types: readonly ('dial' | 'bind')[], walk: Walk, limit: number, offset: number): Promise<GrantedServiceRow[]> {
  let pages = grantedPages.get(db);
  if (!pages) grantedPages.set(db, (pages = new Map()));
  const key = `${walk}:${types.join(',')}`;
  let page = pages.get(key);
  if (!page) pages.set(key, (page = prepareGrantedPage(db, types, walk)));
  const values = (await page.query.values({ identityId, limit, offset })) as unknown[][];
  return values.map(page.map);
}

export type ServiceExtraValues = { attached: string | null; overrides: string | null; grantSet: string | null; viewerPolicies?: string | null; postureChecksExist: number };

/** The configs among `ids` that exist, with their types. */
export async function configsWithTypes(db: Db, ids: string[]): Promise<{ id: string; name: string; configTypeId: string; typeName: string | null }[]> {
  if (ids.length === 0) return [];
  const out: { id: string; name: string; configTypeId: string; typeName: string | null }[] = [];
  for (let i = 0; i < ids.length; i += 90) {
    out.push(
      ...(await db
        .select({ id: configs.id, name: configs.name, configTypeId: configs.configTypeId, typeName: configTypes.name })
        .from(configs)
        .leftJoin(configTypes, eq(configTypes.id, configs.configTypeId))
        .where(inArray(configs.id, ids.slice(i, i + 90)))),
    );
  }
  return out;
}

/** Replaces the service's attached configs. */
export function setServiceConfigs(db: Db, serviceId: string, attached: { configId: string; configTypeId: string }[]): Statement[] {
  const out: Statement[] = [db.delete(serviceConfigs).where(eq(serviceConfigs.serviceId, serviceId))];
  // 3 parameters a row: 30 rows a statement stays under D1's 100.
  for (let i = 0; i < attached.length; i += 30) out.push(db.insert(serviceConfigs).values(attached.slice(i, i + 30).map((a) => ({ serviceId, ...a }))));
  return out;
}

/** What goes with a deleted service: its attached configs and the identity overrides for it. */
export function serviceCascade(db: Db, serviceId: string): Statement[] {
  return [db.delete(serviceConfigs).where(eq(serviceConfigs.serviceId, serviceId)), db.delete(identityServiceConfigs).where(eq(identityServiceConfigs.serviceId, serviceId))];
}

/** Services using a config (`GET /configs/{id}/services`). */
export function servicesUsingConfig(configId: string): SQL {
  return sql`${q(services.id)} IN (SELECT ${q(serviceConfigs.serviceId)} FROM ${serviceConfigs} WHERE ${q(serviceConfigs.configId)} = ${configId})`;
}

/** Detaching a deleted config from every service (§5.2). */
export function detachConfig(db: Db, configId: string): Statement {
  return db.delete(serviceConfigs).where(eq(serviceConfigs.configId, configId));
}

/** An override using the config, if any (a config in use as an override cannot be deleted). */
export async function overrideUsing(db: Db, configId: string): Promise<{ identityId: string; serviceId: string } | undefined> {
  const rows = await db.select({ identityId: identityServiceConfigs.identityId, serviceId: identityServiceConfigs.serviceId }).from(identityServiceConfigs).where(eq(identityServiceConfigs.configId, configId)).limit(1);
  return rows[0];
}

/** The `roleFilter` / `roleSemantic` pre-selection of the service list (§3.5). */
export function serviceRoleFilter(roleFilter: readonly string[] | undefined, roleSemantic: string | undefined): SQL | undefined {
  return compileRoleFilter(roleFilter, roleSemantic, services.roleAttributes, services.id);
}

/** An identity by id or name (`asIdentity`), with whether it is an admin. */
export async function identityByIdOrName(db: Db, idOrName: string): Promise<{ id: string; isAdmin: boolean } | undefined> {
  const rows = await db
    .select({ id: identities.id, isAdmin: sql<number>`${q(identities.isAdmin)} OR ${q(identities.isDefaultAdmin)}` })
    .from(identities)
    .where(or(eq(identities.id, idOrName), eq(identities.name, idOrName)))
    .limit(1);
  return rows[0] ? { id: rows[0].id, isAdmin: Boolean(rows[0].isAdmin) } : undefined;
}

/** The services a Dial or Bind policy (of `types`) grants the identity, walked as given, within `also` if given. */
export function grantedWhere(identityId: string, types: readonly ('dial' | 'bind')[], walk: ServiceWalk, also: SQL | undefined): SQL {
  if (walk === 'none') return sql`0`;
  const granted = reachable('service', 'identity', identityId, types, walk);
  return also ? and(granted, also)! : granted;
}

/** What the client's `GET /services` reads before its page, read along with the session check (`servicesRider`). */
export interface RiddenServiceView {
  /** The caller's Dial/Bind policy count and cached total (`identityServiceAccess`). */
  access: IdentityServiceAccess;
  /** The posture the caller and its API session reported (`postureStateColumn`); null without posture checks. */
  postureState: string | null;
  /** The caller's `services_changed_at`, from the session row itself. */
  servicesChangedAt: number | null;
}

/** The columns of `RiddenServiceView` for the identity and API session given as SQL (the session row's columns, or placeholders). */
function serviceViewColumns(identityId: SQL, apiSessionId: SQL) {
  const access = identityAccessColumns(identityId, ['dial', 'bind']);
  return {
    servicesPolicyCount: access.n,
    servicesCachedTotal: access.cached,
    servicesViewer: access.viewer,
    servicesPostureState: postureStateColumn(identityId, apiSessionId),
  };
}
type ServiceViewRow = { [K in keyof ReturnType<typeof serviceViewColumns>]: unknown };
const serviceViewOf = (row: ServiceViewRow, servicesChangedAt: number | null): RiddenServiceView => ({
  access: identityAccessOf(row.servicesPolicyCount, row.servicesCachedTotal, row.servicesViewer),
  postureState: row.servicesPostureState as string | null,
  servicesChangedAt,
});

/**
 * The client's `GET /services` rides on the session check (`SessionRider`): what its page needs first (the
 * caller's policy count and cached total) and what tells whether a kept page still holds (the stamp, read
 * with the session anyway, and the reported posture) come with the session. A kept page is then the session
 * read alone; a page made afresh adds its own statement (and, under posture checks, the read of its
 * policies' checks). Not used for admins, who list every service (a few index probes read for nothing).
 */
export const servicesRider: SessionRider<RiddenServiceView> = {
  // The session row's own columns, not `callerRef`: none of these sub-queries is nested under a walk that
  // visits many rows, so each runs once for the one row, and without a token-hash lookup apiece (a kept
  // page 217 → 187 µs CPU in-process).
  selection: serviceViewColumns(sql`${q(apiSessions.identityId)}`, sql`${q(apiSessions.id)}`),
  value: (row) => serviceViewOf(row as ServiceViewRow, (row.identity as Pick<SessionIdentity, 'servicesChangedAt'>).servicesChangedAt),
};

const serviceViewLookup = preparedPer((db) =>
  db
    .select({ ...serviceViewColumns(sql`${sql.placeholder('identityId')}`, sql`${sql.placeholder('apiSessionId')}`), servicesChangedAt: identities.servicesChangedAt })
    .from(identities)
    .where(eq(identities.id, sql.placeholder('identityId')))
    .limit(1)
    .prepare(),
);

/**
 * What `servicesRider` reads, for a list whose session check did not read it: an OIDC bearer token (no
 * session row is read), or an admin's `/identities/{id}/services` (`apiSessionId` ''). One statement before
 * the page, or the whole answer when the page is kept. Undefined when the identity is gone.
 */
export async function callerServiceView(db: Db, identityId: string, apiSessionId: string, readAhead?: ReadAhead): Promise<RiddenServiceView | undefined> {
  if (readAhead !== undefined && apiSessionId === '' && readAhead.key === viewKey(identityId)) {
    const [values] = readAhead.values;
    if (!values) return undefined;
    const row = guardedViewSelection.map(values) as ServiceViewRow & { servicesChangedAt: number | null };
    return serviceViewOf(row, row.servicesChangedAt);
  }
  const [row] = await serviceViewLookup(db).all({ identityId, apiSessionId });
  return row ? serviceViewOf(row, row.servicesChangedAt) : undefined;
}

const viewKey = (identityId: string) => `service-view\u0000${identityId}`;
const guardedViewSelection = flatSelection({ ...serviceViewColumns(sql`${sql.placeholder('identityId')}`, sql`''`), servicesChangedAt: identities.servicesChangedAt });
const guardedViewLookups = new WeakMap<SQL, (db: Db) => { getQuery(): { sql: string; params: unknown[] } }>();

/**
 * `callerServiceView` for an admin's `/identities/{id}/services`, as a statement to read with the session
 * check, guarded by `guard` (src/http/register.ts `ListReadAhead`): what decides whether a kept page holds.
 */
export function callerServiceViewReadAhead(db: Db, identityId: string, guard: SQL): PendingRead {
  let lookup = guardedViewLookups.get(guard);
  if (!lookup) {
    lookup = preparedPer((d) =>
      d
        .select(guardedViewSelection.fields as SelectedFields)
        .from(identities)
        .where(and(eq(identities.id, sql.placeholder('identityId')), guard))
        .limit(1)
        .prepare(),
    );
    guardedViewLookups.set(guard, lookup);
  }
  const { sql: text, params } = lookup(db).getQuery();
  return { sql: text, params, placeholders: { identityId }, readAhead: (values) => ({ key: viewKey(identityId), values }) };
}
