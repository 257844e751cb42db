/**
 * The related-entity lists (reference model-and-policies §3.6), policy advice (§3.7) and identity
 * service-config overrides (§8.7): every one reads the policy links, never evaluates a policy.
 */
import type { ListQueryParams } from '../../crud/list-query.js';
import { entityRef } from '../../crud/render.js';
import { findEntity, listRelated } from '../../crud/service.js';
import { atomic, type SQL } from '../../db/client.js';
import { edgeRouterPolicies, serviceEdgeRouterPolicies, servicePolicies } from '../../db/schema/index.js';
import type { Deps } from '../../deps.js';
import { notFound } from '../../errors.js';
import type { PolicyAdvice, RouterEntityRef, ServiceConfigAssign, ServiceConfigDetail } from '../../generated/management-types.js';
import { linkedToPolicy, policiesLinkedTo, reachable, shareLink, type Role } from '../../policy/repo.js';
import { configEntity } from '../configs/entity.js';
import { renderConfig } from '../configs/mapper.js';
import { configExtras } from '../configs/repo.js';
import { edgeRouterPolicyEntity } from '../edge-router-policies/entity.js';
import { renderEdgeRouterPolicy } from '../edge-router-policies/mapper.js';
import { edgeRouterPolicyExtras } from '../edge-router-policies/service.js';
import { listEdgeRoutersWhere } from '../edge-routers/service.js';
import { edgeRouterEntity } from '../edge-routers/entity.js';
import { identityEntity } from '../identities/entity.js';
import { extrasFromSelected, renderIdentity } from '../identities/mapper.js';
import { identityExtras } from '../identities/repo.js';
import { serviceEdgeRouterPolicyEntity } from '../service-edge-router-policies/entity.js';
import { renderServiceEdgeRouterPolicy } from '../service-edge-router-policies/mapper.js';
import { serviceEdgeRouterPolicyExtras } from '../service-edge-router-policies/service.js';
import { servicePolicyEntity } from '../service-policies/entity.js';
import { renderServicePolicy } from '../service-policies/mapper.js';
import { servicePolicyExtras } from '../service-policies/service.js';
import { serviceEntity } from '../services/entity.js';
import { listGrantedServices, listServicesWhere } from '../services/service.js';
import { callerServiceViewReadAhead } from '../services/repo.js';
import type { PendingRead } from '../../db/list-page.js';
import { configsOfService, configTypeOf, overridesOf, removeOverride, routerNames, routersOf, serviceExists, setOverride } from './repo.js';
import { affectedIdentities, markServicesChanged } from '../../policy/service-updates-repo.js';

type Q = ListQueryParams;
type PolicyType = 'dial' | 'bind' | undefined;
const dialBind = (t: PolicyType) => (t ? [t] : (['dial', 'bind'] as const));

function listIdentitiesWhere(deps: Deps, where: SQL, query: Q) {
  const now = deps.now();
  return listRelated(deps, identityEntity, query, { where, extras: identityExtras(now - deps.config.sessionTimeoutSeconds * 1000), render: (r) => renderIdentity(r.row, extrasFromSelected(r, r.row.authPolicyId), now) });
}
const listServicePoliciesWhere = (deps: Deps, where: SQL, query: Q) => listRelated(deps, servicePolicyEntity, query, { where, extras: servicePolicyExtras(), render: (r) => renderServicePolicy(r.row, r) });
const listErpsWhere = (deps: Deps, where: SQL, query: Q) => listRelated(deps, edgeRouterPolicyEntity, query, { where, extras: edgeRouterPolicyExtras(), render: (r) => renderEdgeRouterPolicy(r.row, r) });
const listSerpsWhere = (deps: Deps, where: SQL, query: Q) => listRelated(deps, serviceEdgeRouterPolicyEntity, query, { where, extras: serviceEdgeRouterPolicyExtras(), render: (r) => renderServiceEdgeRouterPolicy(r.row, r) });

export const related = {
  // Entities a policy matches.
  policyIdentities: (deps: Deps, policyId: string, query: Q) => listIdentitiesWhere(deps, linkedToPolicy('identity', policyId), query),
  policyServices: (deps: Deps, policyId: string, query: Q, viewer: string) => listServicesWhere(deps, linkedToPolicy('service', policyId), query, { identityId: viewer }),
  policyRouters: (deps: Deps, policyId: string, query: Q) => listEdgeRoutersWhere(deps, linkedToPolicy('router', policyId), query),
  // Policies matching an entity.
  servicePoliciesOf: (deps: Deps, role: Role, id: string, query: Q) => listServicePoliciesWhere(deps, policiesLinkedTo(servicePolicies, role, id), query),
  edgeRouterPoliciesOf: (deps: Deps, role: Role, id: string, query: Q) => listErpsWhere(deps, policiesLinkedTo(edgeRouterPolicies, role, id), query),
  serviceEdgeRouterPoliciesOf: (deps: Deps, role: Role, id: string, query: Q) => listSerpsWhere(deps, policiesLinkedTo(serviceEdgeRouterPolicies, role, id), query),
  // Entities sharing a policy with an entity.
  // The total is the identity's cached exact count when no filter applies (docs/adr/0006-policy-links.md).
  async identityServices(deps: Deps, id: string, query: Q & { policyType?: PolicyType }) {
    return listGrantedServices(deps, id, dialBind(query.policyType), query, { identityId: id }, { related: true, readAhead: query.readAhead });
  },
  /**
   * What decides whether the identity's kept page holds, read with the session check (src/http/register.ts
   * `ListReadAhead`): for the plain page of Dial and Bind together, the one SDK-like callers ask for.
   */
  identityServicesReadAhead(deps: Deps, id: string, query: Q & { policyType?: PolicyType }, guard: SQL): PendingRead | undefined {
    if (query.filter || query.sort || query.policyType) return undefined;
    return callerServiceViewReadAhead(deps.db, id, guard);
  },
  identityRouters: (deps: Deps, id: string, query: Q) => listEdgeRoutersWhere(deps, reachable('router', 'identity', id, ['erp']), query),
  serviceIdentities: (deps: Deps, id: string, query: Q & { policyType?: PolicyType }) => listIdentitiesWhere(deps, reachable('identity', 'service', id, dialBind(query.policyType)), query),
  serviceRouters: (deps: Deps, id: string, query: Q) => listEdgeRoutersWhere(deps, reachable('router', 'service', id, ['serp']), query),
  routerIdentities: (deps: Deps, id: string, query: Q) => listIdentitiesWhere(deps, reachable('identity', 'router', id, ['erp']), query),
  routerServices: (deps: Deps, id: string, query: Q, viewer: string) => listServicesWhere(deps, reachable('service', 'router', id, ['serp']), query, { identityId: viewer }),
  serviceConfigs: (deps: Deps, id: string, query: Q) => listRelated(deps, configEntity, query, { where: configsOfService(id), extras: configExtras(), render: (r) => renderConfig(r.row, r.configTypeName ?? '') }),
};

/**
 * `GET /identities/{id}/policy-advice/{serviceId}` (§3.7): false flags, zero counts and an empty router
 * list are left out, as the controller's JSON does.
 */
export async function policyAdvice(deps: Deps, identityId: string, serviceId: string): Promise<PolicyAdvice> {
  const { row: identity } = await findEntity(deps, identityEntity, identityId);
  const { row: service } = await findEntity(deps, serviceEntity, serviceId);
  const [dial, bind, mine, its] = await Promise.all([
    shareLink(deps.db, 'identity', identityId, 'service', serviceId, 'dial'),
    shareLink(deps.db, 'identity', identityId, 'service', serviceId, 'bind'),
    routersOf(deps.db, 'identity', identityId, 'erp'),
    routersOf(deps.db, 'service', serviceId, 'serp'),
  ]);
  const common = await routerNames(deps.db, [...mine].filter((r) => its.has(r)));
  const out: PolicyAdvice = { identityId, identity: entityRef('identities', identity.id, identity.name), serviceId, service: entityRef('services', service.id, service.name) };
  if (dial) out.isDialAllowed = true;
  if (bind) out.isBindAllowed = true;
  if (mine.size > 0) out.identityRouterCount = mine.size;
  if (its.size > 0) out.serviceRouterCount = its.size;
  out.commonRouters = common.length > 0 ? common.map((r): RouterEntityRef => ({ ...entityRef(edgeRouterEntity.collection, r.id, r.name), isOnline: false })) : null;
  return out;
}

/** `GET /identities/{id}/service-configs` (§8.7): 404 for an unknown identity. */
export async function listOverrides(deps: Deps, identityId: string): Promise<ServiceConfigDetail[]> {
  await findEntity(deps, identityEntity, identityId);
  return (await overridesOf(deps.db, identityId)).map((o) => ({ serviceId: o.serviceId, service: entityRef('services', o.serviceId, o.serviceName), configId: o.configId, config: entityRef('configs', o.configId, o.configName) }));
}

/**
 * `POST` (set) / `DELETE` (remove) `/identities/{id}/service-configs`: each pair names a service and a
 * config; the override of that config's type on that service is replaced or removed. All pairs are
 * checked first (unknown service or config → 404) and written in one batch.
 */
export async function changeOverrides(deps: Deps, identityId: string, pairs: readonly ServiceConfigAssign[], action: 'set' | 'remove'): Promise<void> {
  await findEntity(deps, identityEntity, identityId);
  const statements = [];
  for (const p of pairs) {
    if (!(await serviceExists(deps.db, p.serviceId))) throw notFound('service', p.serviceId);
    const typeId = await configTypeOf(deps.db, p.configId);
    if (typeId === undefined) throw notFound('config', p.configId);
    statements.push(action === 'set' ? setOverride(deps.db, identityId, p.serviceId, typeId, p.configId) : removeOverride(deps.db, identityId, p.serviceId, typeId));
  }
  if (statements.length > 0) statements.push(markServicesChanged(deps.db, deps.now(), affectedIdentities.one(identityId)));
  await atomic(deps.db, statements);
}
