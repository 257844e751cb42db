import { links, stringSetOrNull } from '../../crud/render.js';
import { iso } from '../../lib/time.js';
import type { NamedRoles, Semantic, ServicePolicyDetail } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import type { ServicePolicyRow } from './entity.js';

export type Displays = { identityRolesDisplay: string | null; serviceRolesDisplay: string | null; postureCheckRolesDisplay: string | null };
const display = (text: string | null | undefined): NamedRoles => readJson<NamedRoles>(text, []);

const SERVICE_POLICY_LINKS = { services: 'services', identities: 'identities', 'posture-checks': 'posture-checks' };

export function renderServicePolicy(p: ServicePolicyRow, d: Displays): ServicePolicyDetail {
  return {
    id: p.id,
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
    tags: readJson<Record<string, unknown>>(p.tags, {}),
    _links: links(`./service-policies/${p.id}`, SERVICE_POLICY_LINKS),
    name: p.name,
    type: p.type,
    semantic: p.semantic as Semantic,
    identityRoles: stringSetOrNull(p.identityRoles),
    identityRolesDisplay: display(d.identityRolesDisplay),
    serviceRoles: stringSetOrNull(p.serviceRoles),
    serviceRolesDisplay: display(d.serviceRolesDisplay),
    postureCheckRoles: stringSetOrNull(p.postureCheckRoles),
    postureCheckRolesDisplay: display(d.postureCheckRolesDisplay),
  };
}
