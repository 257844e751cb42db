import { resourceService } from '../../crud/service.js';
import { serviceEdgeRouterPolicies } from '../../db/schema/index.js';
import { policyRules } from '../../policy/policies.js';
import { rolesDisplay } from '../../policy/repo.js';
import { serviceEdgeRouterPolicyEntity } from './entity.js';
import { renderServiceEdgeRouterPolicy } from './mapper.js';

const rules = policyRules('serp');

export const serviceEdgeRouterPolicyExtras = () => ({ serviceRolesDisplay: rolesDisplay(serviceEdgeRouterPolicies.serviceRoles, 'service'), edgeRouterRolesDisplay: rolesDisplay(serviceEdgeRouterPolicies.edgeRouterRoles, 'router') });

export const serviceEdgeRouterPolicyService = resourceService(serviceEdgeRouterPolicyEntity, {
  extras: serviceEdgeRouterPolicyExtras,
  render: (r) => renderServiceEdgeRouterPolicy(r.row, r),
  create: rules.create,
  update: rules.update,
  remove: rules.remove,
});
