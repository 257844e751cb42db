import { resourceService } from '../../crud/service.js';
import { edgeRouterPolicies } from '../../db/schema/index.js';
import { policyRules } from '../../policy/policies.js';
import { rolesDisplay } from '../../policy/repo.js';
import { edgeRouterPolicyEntity } from './entity.js';
import { renderEdgeRouterPolicy } from './mapper.js';

const rules = policyRules('erp');

export const edgeRouterPolicyExtras = () => ({ identityRolesDisplay: rolesDisplay(edgeRouterPolicies.identityRoles, 'identity'), edgeRouterRolesDisplay: rolesDisplay(edgeRouterPolicies.edgeRouterRoles, 'router') });

export const edgeRouterPolicyService = resourceService(edgeRouterPolicyEntity, {
  extras: edgeRouterPolicyExtras,
  render: (r) => renderEdgeRouterPolicy(r.row, r),
  create: rules.create,
  update: rules.update,
  remove: rules.remove,
});
