import { handlers, type ManagementOperations } from '../../http/handler.js';
import type { ListReadAhead } from '../../http/register.js';
import { changeOverrides, listOverrides, policyAdvice, related } from './service.js';

/** Management related-entity lists (§3.6), policy advice (§3.7) and service-config overrides (§8.7). */
export const policyListHandlers = handlers<ManagementOperations>()({
  listServicePolicyIdentities: async ({ svc, params, list, reply }) => reply.list(await related.policyIdentities(svc.deps, params.id, list)),
  listServicePolicyServices: async ({ svc, params, list, caller, reply }) => reply.list(await related.policyServices(svc.deps, params.id, list, caller.identity.id)),
  listEdgeRouterPolicyIdentities: async ({ svc, params, list, reply }) => reply.list(await related.policyIdentities(svc.deps, params.id, list)),
  listEdgeRouterPolicyEdgeRouters: async ({ svc, params, list, reply }) => reply.list(await related.policyRouters(svc.deps, params.id, list)),
  listServiceEdgeRouterPolicyServices: async ({ svc, params, list, caller, reply }) => reply.list(await related.policyServices(svc.deps, params.id, list, caller.identity.id)),
  listServiceEdgeRouterPolicyEdgeRouters: async ({ svc, params, list, reply }) => reply.list(await related.policyRouters(svc.deps, params.id, list)),

  listIdentityServicePolicies: async ({ svc, params, list, reply }) => reply.list(await related.servicePoliciesOf(svc.deps, 'identity', params.id, list)),
  listIdentitysEdgeRouterPolicies: async ({ svc, params, list, reply }) => reply.list(await related.edgeRouterPoliciesOf(svc.deps, 'identity', params.id, list)),
  listIdentityServices: async ({ svc, params, list, query, reply }) => reply.list(await related.identityServices(svc.deps, params.id, { ...list, policyType: query.policyType })),
  listIdentityEdgeRouters: async ({ svc, params, list, reply }) => reply.list(await related.identityRouters(svc.deps, params.id, list)),

  listServiceServicePolicies: async ({ svc, params, list, reply }) => reply.list(await related.servicePoliciesOf(svc.deps, 'service', params.id, list)),
  listServiceServiceEdgeRouterPolicies: async ({ svc, params, list, reply }) => reply.list(await related.serviceEdgeRouterPoliciesOf(svc.deps, 'service', params.id, list)),
  listServiceIdentities: async ({ svc, params, list, query, reply }) => reply.list(await related.serviceIdentities(svc.deps, params.id, { ...list, policyType: query.policyType })),
  listServiceEdgeRouters: async ({ svc, params, list, reply }) => reply.list(await related.serviceRouters(svc.deps, params.id, list)),
  listServiceConfig: async ({ svc, params, list, reply }) => reply.list(await related.serviceConfigs(svc.deps, params.id, list)),

  listEdgeRouterEdgeRouterPolicies: async ({ svc, params, list, reply }) => reply.list(await related.edgeRouterPoliciesOf(svc.deps, 'router', params.id, list)),
  // The specification declares service policies here; the controller lists service edge router policies (ADR 0001).
  listEdgeRouterServiceEdgeRouterPolicies: async ({ svc, params, list, reply }) => reply.list((await related.serviceEdgeRouterPoliciesOf(svc.deps, 'router', params.id, list)) as never),
  listEdgeRouterIdentities: async ({ svc, params, list, reply }) => reply.list(await related.routerIdentities(svc.deps, params.id, list)),
  listEdgeRouterServices: async ({ svc, params, list, caller, reply }) => reply.list(await related.routerServices(svc.deps, params.id, list, caller.identity.id)),

  // The controller answers with a null meta here (§3.7).
  getIdentityPolicyAdvice: async ({ svc, params, reply }) => reply.ok(await policyAdvice(svc.deps, params.id, params.serviceId)),
  listIdentitysServiceConfigs: async ({ svc, params, reply }) => reply.ok(await listOverrides(svc.deps, params.id)),
  associateIdentitysServiceConfigs: async ({ svc, params, body, reply }) => (await changeOverrides(svc.deps, params.id, body, 'set'), reply.empty()),
  disassociateIdentitysServiceConfigs: async ({ svc, params, body, reply }) => (await changeOverrides(svc.deps, params.id, body ?? [], 'remove'), reply.empty()),
});

/** An admin's `/identities/{id}/services`: what decides its kept page, read with the session check where that saves a round trip. */
export const identityServicesReadAhead: ListReadAhead = (deps, list, query, guard, params) => related.identityServicesReadAhead(deps, params.id, { ...list, policyType: query.policyType as 'dial' | 'bind' | undefined }, guard);
