import { resourceService } from '../../crud/service.js';
import { servicePolicies } from '../../db/schema/index.js';
import { policyRules } from '../../policy/policies.js';
import { rolesDisplay } from '../../policy/repo.js';
import { servicePolicyEntity } from './entity.js';
import { renderServicePolicy } from './mapper.js';

const rules = policyRules('sp');

export const servicePolicyExtras = () => ({
  identityRolesDisplay: rolesDisplay(servicePolicies.identityRoles, 'identity'),
  serviceRolesDisplay: rolesDisplay(servicePolicies.serviceRoles, 'service'),
  postureCheckRolesDisplay: rolesDisplay(servicePolicies.postureCheckRoles, 'postureCheck'),
});

export const servicePolicyService = resourceService(servicePolicyEntity, {
  extras: servicePolicyExtras,
  render: (r) => renderServicePolicy(r.row, r),
  create: rules.create,
  update: rules.update,
  remove: rules.remove,
});
