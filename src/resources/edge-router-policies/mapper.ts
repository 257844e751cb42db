import { baseEntity } from '../../crud/render.js';
import type { EdgeRouterPolicyDetail, NamedRoles, Semantic } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import type { EdgeRouterPolicyRow } from './entity.js';

export function renderEdgeRouterPolicy(p: EdgeRouterPolicyRow, d: { identityRolesDisplay: string | null; edgeRouterRolesDisplay: string | null }): EdgeRouterPolicyDetail {
  return {
    ...baseEntity(p, `./edge-router-policies/${p.id}`, { 'edge-routers': 'edge-routers', identities: 'identities' }),
    name: p.name,
    semantic: p.semantic as Semantic,
    isSystem: p.isSystem,
    identityRoles: readJson<string[]>(p.identityRoles, []),
    identityRolesDisplay: readJson<NamedRoles>(d.identityRolesDisplay, []),
    edgeRouterRoles: readJson<string[]>(p.edgeRouterRoles, []),
    edgeRouterRolesDisplay: readJson<NamedRoles>(d.edgeRouterRolesDisplay, []),
  };
}
