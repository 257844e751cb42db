import { createEntity, deleteEntity, findEntity, listEntities, listRelated, updateEntity, type ListResult } from '../../crud/service.js';
import { listMeta, resolveListQuery, type ListQueryParams } from '../../crud/list-query.js';
import type { Statement } from '../../crud/repo.js';
import type { SQL } from '../../db/client.js';
import type { ReadAhead } from '../../db/list-page.js';
import type { Deps } from '../../deps.js';
import { fieldError, messageError, notFound } from '../../errors.js';
import type { ServiceCreate, ServiceDetail, ServicePatch } from '../../generated/management-types.js';
import { entityLinkStatements, entityRemovalStatements, identityServiceReach } from '../../policy/repo.js';
import { evaluatePolicies, postureMovesWithTime, type PolicyPosture } from '../../posture/evaluate.js';
import { KeptServicePages, keptServicePages } from './page-cache.js';
import { affectedIdentities, markServicesChanged } from '../../policy/service-updates-repo.js';
import { terminatorsOfService } from '../terminators/repo.js';
import { serviceEntity, TERMINATOR_STRATEGIES, type ServiceRow } from './entity.js';
import { configSelection, PageAccess, renderService, viewerPolicySet, viewGrants } from './mapper.js';
import { callerServiceView, configsWithTypes, grantedServicePage, grantedWhere, identityByIdOrName, serviceCascade, serviceExtras, serviceRoleFilter, servicesRider, servicesUsingConfig, setServiceConfigs, type RiddenServiceView, type ServiceExtraValues } from './repo.js';
import { riddenValue, type RiddenValue } from '../../auth/session-repo.js';
import { readJson } from '../../lib/json.js';
import { postureInputs } from '../../posture/repo.js';

type Attached = { configId: string; configTypeId: string }[];

/** The configs a write attaches, resolved by `check` and written by `statements` of the same write. */
const pendingConfigs = new WeakMap<object, Attached>();

function checkStrategy(strategy: string | undefined): void {
  // The controller answers 404 here (§4.1 quirk kept: clients match on it).
  if (strategy !== undefined && !(TERMINATOR_STRATEGIES as readonly string[]).includes(strategy)) throw messageError('NOT_FOUND', `terminatorStrategy with name ${strategy} not found`);
}

/** Configs must exist (404) and be at most one per config type (400, §4.1). */
async function resolveConfigs(deps: Deps, ids: readonly string[]): Promise<Attached> {
  const wanted = [...new Set(ids)];
  const found = await configsWithTypes(deps.db, wanted);
  const byId = new Map(found.map((c) => [c.id, c]));
  const missing = wanted.find((id) => !byId.has(id));
  if (missing !== undefined) throw messageError('NOT_FOUND', `configs with id ${missing} not found`);
  const byType = new Map<string, (typeof found)[number]>();
  for (const id of wanted) {
    const c = byId.get(id)!;
    const other = byType.get(c.configTypeId);
    if (other) throw fieldError('configs', `duplicate configs named ${other.name} and ${c.name} found for config type ${c.typeName ?? c.configTypeId}. Only one config of a given typed is allowed per service`, wanted);
    byType.set(c.configTypeId, c);
  }
  return wanted.map((id) => ({ configId: id, configTypeId: byId.get(id)!.configTypeId }));
}

/** Attached configs and policy links of a create or update; the identities reaching the service see a change. */
function linkStatements(deps: Deps, id: string, values: { roleAttributes?: string[] }, now: number): Statement[] {
  const attached = pendingConfigs.get(values);
  return [
    ...(attached ? setServiceConfigs(deps.db, id, attached) : []),
    ...(values.roleAttributes !== undefined ? entityLinkStatements(deps.db, 'service', id, values.roleAttributes, now) : [markServicesChanged(deps.db, now, affectedIdentities.reachingService(id))]),
  ];
}

/**
 * Whose view a service is rendered in (permissions, overrides, posture) and which config types its
 * `config` holds.
 */
export interface ServiceView {
  identityId: string;
  /** The API session posture is evaluated for (MFA and endpoint state); none: those checks fail. */
  apiSessionId?: string;
  configTypes?: readonly string[];
}

/** The caller of the client API: admins see every service, others what their policies grant (§4.2). */
export interface ServiceCaller extends ServiceView {
  apiSessionId: string;
  isAdmin: boolean;
  /** What the session check read along (`servicesRider` for the client's `GET /services`). */
  ridden?: RiddenValue;
}

/** `?configTypes=a,b` (management) may be repeated and comma-separated. */
function wantedTypes(view: ServiceView): string[] {
  return (view.configTypes ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

type SelectedService = ServiceExtraValues & { row: ServiceRow };
/** The page's rows, and the viewer's policies when the rows do not select them (the granted page). */
type ServicePage = ListResult<SelectedService> & { viewerPolicies?: string | null };
const selected = (r: SelectedService) => r;

/**
 * Renders a page in the view: each distinct access (the policies granting a service) is read once, the
 * posture of every policy granting a service on the page is evaluated once (at most a few reads whatever
 * the page size, and only when posture checks exist at all), and each distinct `postureQueries` rendered once.
 */
async function renderPage(deps: Deps, view: ServiceView, rows: readonly SelectedService[], viewerPolicies?: string | null, facts?: RenderFacts): Promise<ServiceDetail[]> {
  const accesses = new PageAccess(viewerPolicies);
  const access = rows.map((r) => accesses.of(r));
  let posture: Map<string, PolicyPosture> | undefined;
  if (accesses.policyIds.size > 0 && rows.some((r) => r.postureChecksExist)) {
    const policyIds = [...accesses.policyIds];
    const read = await postureInputs(deps.db, policyIds, view.identityId, view.apiSessionId ?? '');
    if (facts) facts.movesWithTime = postureMovesWithTime(read);
    posture = await evaluatePolicies(deps, view.identityId, view.apiSessionId ?? '', policyIds, read);
  }
  accesses.render(posture);
  const wanted = configSelection(wantedTypes(view));
  return rows.map((r, i) => renderService(r.row, r, wanted, access[i]));
}

/** What rendering learnt that decides whether the page may be kept. */
interface RenderFacts {
  /** Its posture would evaluate differently at another moment (`postureMovesWithTime`). */
  movesWithTime: boolean;
}

async function renderList(deps: Deps, view: ServiceView, page: ServicePage, facts?: RenderFacts): Promise<ListResult<ServiceDetail>> {
  return { data: await renderPage(deps, view, page.data, page.viewerPolicies, facts), meta: page.meta };
}

export { servicesRider };

export const serviceService = {
  async list(deps: Deps, list: ListQueryParams, query: { roleFilter?: string[]; roleSemantic?: string }, view: ServiceView): Promise<ListResult<ServiceDetail>> {
    return renderList(deps, view, await listEntities(deps, serviceEntity, list, { where: serviceRoleFilter(query.roleFilter, query.roleSemantic), extras: serviceExtras(view.identityId), render: selected }));
  },
  async detail(deps: Deps, id: string, view: ServiceView): Promise<ServiceDetail> {
    return (await renderPage(deps, view, [await findEntity(deps, serviceEntity, id, serviceExtras(view.identityId))]))[0];
  },
  /**
   * Client `GET /services`: an admin lists every service; anyone else the services a Dial or Bind policy
   * grants, with the exact total cached per identity (docs/adr/0006-policy-links.md).
   */
  async listForCaller(deps: Deps, list: ListQueryParams, query: { roleFilter?: string[]; roleSemantic?: string }, caller: ServiceCaller): Promise<ListResult<ServiceDetail>> {
    if (caller.isAdmin) return serviceService.list(deps, list, query, caller);
    // Read along by the session check; a bearer token reads no session row, and its page reads it (`listGrantedServices`).
    return listGrantedServices(deps, caller.identityId, ['dial', 'bind'], list, caller, { roleFilter: serviceRoleFilter(query.roleFilter, query.roleSemantic), known: riddenValue(caller.ridden, servicesRider) });
  },
  /** The identity an admin lists services as (`asIdentity`: id or name), or 404. */
  async viewer(deps: Deps, idOrName: string): Promise<{ identityId: string; isAdmin: boolean }> {
    const found = await identityByIdOrName(deps.db, idOrName);
    if (!found) throw notFound('identity', idOrName);
    return { identityId: found.id, isAdmin: found.isAdmin };
  },
  /** Client `GET /services/{id}`: 404 unless the caller is an admin or a policy grants it the service (§4.2). */
  async detailForCaller(deps: Deps, id: string, caller: ServiceCaller): Promise<ServiceDetail> {
    const found = await findEntity(deps, serviceEntity, id, serviceExtras(caller.identityId));
    if (!caller.isAdmin && viewGrants(found, viewerPolicySet(found.viewerPolicies)).length === 0) throw notFound('service', id);
    return (await renderPage(deps, caller, [found]))[0];
  },
  create: (deps: Deps, body: ServiceCreate) =>
    createEntity(deps, serviceEntity, body, {
      async check(d, values, b) {
        checkStrategy(values.terminatorStrategy);
        pendingConfigs.set(values, await resolveConfigs(d, b.configs ?? []));
      },
      statements: (d, id, values, now) => linkStatements(d, id, values, now),
    }),
  update: (deps: Deps, id: string, body: ServicePatch, mode: 'update' | 'patch') =>
    updateEntity(deps, serviceEntity, id, body, mode, {
      async check(d, values, _existing, b) {
        // encryptionRequired is create-only in effect: PATCH ignores it, PUT writes it (§2.7 quirk kept).
        if (mode === 'patch') delete values.encryptionRequired;
        checkStrategy(values.terminatorStrategy);
        if (mode === 'update' || (b.configs !== undefined && b.configs !== null)) pendingConfigs.set(values, await resolveConfigs(d, b.configs ?? []));
      },
      statements: (d, existing, values, now) => linkStatements(d, existing.id, values, now),
    }),
  remove: (deps: Deps, id: string) => deleteEntity(deps, serviceEntity, id, { cascade: (d, existing) => [...serviceCascade(d.db, existing.id), terminatorsOfService(d.db, existing.id), ...entityRemovalStatements(d.db, 'service', existing.id, d.now())] }),
};

/** A `limit` or `offset` the related-entity lists accept as given (others are their 400, src/crud/service.ts). */
const PLAIN_INTEGER = /^[+-]?\d{1,15}$/;

/**
 * The services a Dial or Bind policy (of `types`) grants the identity, rendered in `view`, with the
 * identity's exact total cached (docs/adr/0006-policy-links.md). The page SDKs ask for (no filter, sort or
 * roleFilter) is one prepared statement; any other takes the general list path, with the same answer.
 * `related`: the listing is a related-entity list (`/identities/{id}/services`), with its paging rules.
 */
export async function listGrantedServices(
  deps: Deps,
  identityId: string,
  types: readonly ('dial' | 'bind')[],
  list: ListQueryParams,
  view: ServiceView,
  options: { roleFilter?: SQL; related?: boolean; known?: RiddenServiceView; readAhead?: ReadAhead } = {},
): Promise<ListResult<ServiceDetail>> {
  const { roleFilter, related = false } = options;
  let { known } = options;
  const plainPaging = !related || [list.limit, list.offset].every((v) => v === undefined || v === '' || PLAIN_INTEGER.test(String(v)));
  const plain = !list.filter && !list.sort && !roleFilter && plainPaging;
  const q = plain ? resolveListQuery(list, serviceEntity.fields) : undefined;
  // The plain page may be a kept one (page-cache.ts): what decides it was read along by the session check
  // (`known`), or, for Dial and Bind together (what the view reads), is read here in one statement.
  let kept = q ? keptServicePages(deps.db, deps.config.servicePageCacheBytes) : undefined;
  if (kept && !known && types.length === 2) known = await callerServiceView(deps.db, identityId, view.apiSessionId ?? '', options.readAhead);
  if (!known) kept = undefined;
  // Rendered for an API session (the client's), or for the identity alone (management): posture differs.
  const key = kept && q ? KeptServicePages.key(identityId, types, wantedTypes(view), q.limit, q.offset, Boolean(view.apiSessionId)) : '';
  const hit = kept?.get(key, known!);
  if (hit) return hit;
  // One statement (or the session check, `known`) gives, usually, the cached exact total, and with it the walk of the page.
  const { total, walk, viewerPolicies } = await identityServiceReach(deps.db, identityId, types, known?.access);
  if (q) {
    const rows = walk === 'none' ? [] : await grantedServicePage(deps.db, identityId, types, walk, q.limit ?? -1, q.offset);
    const facts: RenderFacts = { movesWithTime: false };
    const page = await renderList(deps, view, { data: rows, meta: listMeta(total, q.limit, q.offset, serviceEntity.fields), viewerPolicies }, facts);
    if (kept && !facts.movesWithTime) kept.put(key, known!, page, deps.now());
    return page;
  }
  const where = grantedWhere(identityId, types, walk, roleFilter);
  const general = { where, extras: serviceExtras(identityId), render: selected, total: roleFilter ? undefined : async () => total };
  return renderList(deps, view, await (related ? listRelated(deps, serviceEntity, list, general) : listEntities(deps, serviceEntity, list, general)));
}

/** A service sub-list in an identity's view (`/configs/{id}/services`, `/identities/{id}/services`, ...). */
export async function listServicesWhere(deps: Deps, where: Parameters<typeof listRelated>[3]['where'], query: ListQueryParams, view: ServiceView, total?: () => Promise<number>) {
  return renderList(deps, view, await listRelated(deps, serviceEntity, query, { where, extras: serviceExtras(view.identityId), render: selected, total }));
}

export function listConfigServices(deps: Deps, configId: string, query: ListQueryParams, view: ServiceView) {
  return listServicesWhere(deps, servicesUsingConfig(configId), query, view);
}
