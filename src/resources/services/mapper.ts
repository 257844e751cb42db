import { links, stringSetOrNull } from '../../crud/render.js';
import { iso } from '../../lib/time.js';
import type { DialBind, PostureQueries, ServiceDetail } from '../../generated/management-types.js';
import type { PolicyPosture } from '../../posture/evaluate.js';
import { readJson, serialisedOnce } from '../../lib/json.js';
import type { ServiceRow } from './entity.js';
import type { ServiceExtraValues } from './repo.js';

interface AttachedConfig {
  typeId: string;
  typeName: string;
  configId: string;
  data: Record<string, unknown>;
}

export const SERVICE_LINKS = { 'service-edge-router-policies': 'service-edge-router-policies', 'service-policies': 'service-policies', terminators: 'terminators', configs: 'configs' };

/** Which config types a view wants (`configTypes`: ids or names, `all` for every type), decided once per page. */
export interface ConfigSelection {
  all: boolean;
  types: ReadonlySet<string>;
}

export function configSelection(wanted: readonly string[]): ConfigSelection {
  return { all: wanted.includes('all'), types: new Set(wanted) };
}

/**
 * The `config` map (§4.3): attached configs of the wanted types, replaced by the identity's overrides,
 * keyed by type name; unknown wanted entries drop out.
 */
function configMap(attached: readonly AttachedConfig[], overrides: readonly AttachedConfig[], wanted: ConfigSelection): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  if (attached.length === 0 && overrides.length === 0) return out;
  const byType = new Map<string, AttachedConfig>();
  for (const list of [attached, overrides]) {
    for (const c of list) if (wanted.all || wanted.types.has(c.typeId) || wanted.types.has(c.typeName)) byType.set(c.typeId, c);
  }
  for (const c of byType.values()) out[c.typeName] = c.data;
  return out;
}

/** A service policy through which the viewing identity reaches the service. */
export interface Grant {
  policyId: string;
  type: 'dial' | 'bind';
}

/** The viewing identity's Dial/Bind service policies (a JSON array of ids), as a set. */
export function viewerPolicySet(viewerPolicies: string | null | undefined): ReadonlySet<string> {
  return new Set(readJson<string[]>(viewerPolicies, []));
}

/**
 * The service policies through which the viewing identity reaches the service: the service's Dial/Bind
 * policies (`service_grant_sets`) that are also the identity's.
 */
export function viewGrants(extras: Pick<ServiceExtraValues, 'grantSet'>, viewer: ReadonlySet<string>): Grant[] {
  const out: Grant[] = [];
  for (const [policyId, type] of readJson<[string, 'dial' | 'bind'][]>(extras.grantSet, [])) if (viewer.has(policyId)) out.push({ policyId, type });
  return out;
}

/** Service permissions for an identity: Bind before Dial; `Invalid` when neither, never empty (§4.2). */
export function permissions(grants: readonly Grant[]): DialBind[] {
  const out: DialBind[] = [];
  if (grants.some((g) => g.type === 'bind')) out.push('Bind');
  if (grants.some((g) => g.type === 'dial')) out.push('Dial');
  return out.length > 0 ? out : ['Invalid'];
}

/** The controller's placeholder entry of a permission without posture checks (§4.4). */
function placeholder(p: DialBind): PostureQueries {
  return { policyId: `dummy ${p.toLowerCase()} policy: no posture checks defined`, policyType: p, isPassing: true, postureQueries: [] };
}
/**
 * The placeholders, made once: a page of 500 services renders one or two per service, and sharing them
 * only changes how many objects the page allocates (they are serialised, never changed).
 */
const PLACEHOLDERS: Record<DialBind, PostureQueries> = { Bind: placeholder('Bind'), Dial: placeholder('Dial'), Invalid: placeholder('Invalid') };

/**
 * What the viewing identity may do with a service: its granting policies (or bare permissions), the
 * permissions, and the `postureQueries` rendered from them. It depends on the granting policies alone, so a
 * page reads and renders it once per distinct value (`PageAccess`): the worst-case identity's 500 services
 * share a few dozen, each listing up to ~28 policies.
 */
export interface ServiceAccess {
  grants: readonly Grant[];
  permissions: DialBind[];
  postureQueries: PostureQueries[];
}

/** From this many services of a page sharing one `postureQueries` on, it is serialised once. */
const SHARED_ENOUGH = 3;

/**
 * The accesses of the services of one page, each distinct value read once; `render` then builds every
 * distinct `postureQueries` once, with an entry per policy shared by every service that policy grants.
 * The rendered objects are shared, never changed: each is serialised once per response (`serialisedOnce`).
 */
export class PageAccess {
  private readonly byValue = new Map<string, ServiceAccess>();
  /** How many services of the page have each access. */
  private readonly uses = new Map<ServiceAccess, number>();
  /**
   * The viewing identity's policies: given (read before the page), or the same on every row of a
   * statement that selects them, read from the first.
   */
  private viewer: ReadonlySet<string> | undefined;

  constructor(viewerPolicies?: string | null) {
    if (viewerPolicies !== undefined) this.viewer = viewerPolicySet(viewerPolicies);
  }
  /** The policies granting any service of the page (those whose posture is evaluated). */
  readonly policyIds = new Set<string>();

  of(extras: Pick<ServiceExtraValues, 'grantSet' | 'viewerPolicies'>): ServiceAccess {
    const key = extras.grantSet ?? '';
    let access = this.byValue.get(key);
    if (!access) {
      if (!this.viewer && extras.viewerPolicies === undefined) throw new Error('PageAccess: the viewer policies were neither given nor selected');
      const grants = viewGrants(extras, (this.viewer ??= viewerPolicySet(extras.viewerPolicies)));
      for (const g of grants) this.policyIds.add(g.policyId);
      const perms = permissions(grants);
      access = { grants, permissions: perms, postureQueries: perms.map((p) => PLACEHOLDERS[p]) };
      this.byValue.set(key, access);
    }
    this.uses.set(access, (this.uses.get(access) ?? 0) + 1);
    return access;
  }

  /**
   * `postureQueries` (§4.4): one entry per granting policy with its evaluated checks when posture checks
   * exist (`posture` given), otherwise the controller's placeholder per permission (set by `of`).
   */
  render(posture: ReadonlyMap<string, PolicyPosture> | undefined): void {
    if (!posture) return;
    const entries = new Map<string, PostureQueries>();
    for (const access of this.byValue.values()) {
      if (access.grants.length === 0) continue;
      access.postureQueries = access.grants.map((g) => {
        const key = `${g.type}:${g.policyId}`;
        let entry = entries.get(key);
        if (!entry) {
          const p = posture.get(g.policyId);
          entry = { policyId: g.policyId, policyType: g.type === 'bind' ? 'Bind' : 'Dial', isPassing: p?.isPassing ?? true, postureQueries: p?.postureQueries ?? [] };
          entries.set(key, entry);
        }
        return entry;
      });
      // Shared by every service of the page with this access: serialised once when that saves work
      // (src/lib/json.ts). Marking costs more than it saves for a list written once or twice.
      if ((this.uses.get(access) ?? 0) >= SHARED_ENOUGH) serialisedOnce(access.postureQueries);
    }
  }
}

/**
 * The serviceDetail shape; `permissions`, `postureQueries` and the config overrides are those of the
 * viewing identity (`access`), `config` holds the `wanted` config types. Written out field by field (no
 * spread of `baseEntity`): a page renders up to 500 of these.
 */
export function renderService(row: ServiceRow, extras: ServiceExtraValues, wanted: ConfigSelection, access: ServiceAccess): ServiceDetail {
  const attached = readJson<AttachedConfig[]>(extras.attached, []);
  const self = `./services/${row.id}`;
  return {
    id: row.id,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    tags: readJson<Record<string, unknown>>(row.tags, {}),
    _links: links(self, SERVICE_LINKS),
    name: row.name,
    terminatorStrategy: row.terminatorStrategy,
    maxIdleTimeMillis: row.maxIdleTimeMillis,
    encryptionRequired: row.encryptionRequired,
    roleAttributes: stringSetOrNull(row.roleAttributes),
    configs: attached.length === 0 ? [] : attached.map((c) => c.configId).sort(),
    config: configMap(attached, readJson<AttachedConfig[]>(extras.overrides, []), wanted),
    permissions: access.permissions,
    postureQueries: access.postureQueries,
  };
}
