import { links, stringSetOrNull } from '../../crud/render.js';
import { iso } from '../../lib/time.js';
import type { EdgeRouterPolicyDetail, NamedRoles, Semantic } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import type { EdgeRouterPolicyRow } from './entity.js';

const EDGE_ROUTER_POLICY_LINKS = { 'edge-routers': 'edge-routers', identities: 'identities' };

export function renderEdgeRouterPolicy(p: EdgeRouterPolicyRow, d: { identityRolesDisplay: string | null; edgeRouterRolesDisplay: string | null }): EdgeRouterPolicyDetail {
  return {
    id: p.id,
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
    tags: readJson<Record<string, unknown>>(p.tags, {}),
    _links: links(`./edge-router-policies/${p.id}`, EDGE_ROUTER_POLICY_LINKS),
    name: p.name,
    semantic: p.semantic as Semantic,
    isSystem: p.isSystem,
    identityRoles: stringSetOrNull(p.identityRoles),
    identityRolesDisplay: readJson<NamedRoles>(d.identityRolesDisplay, []),
    edgeRouterRoles: stringSetOrNull(p.edgeRouterRoles),
    edgeRouterRolesDisplay: readJson<NamedRoles>(d.edgeRouterRolesDisplay, []),
  };
}
