import { links, stringSetOrNull } from '../../crud/render.js';
import { iso } from '../../lib/time.js';
import type { NamedRoles, Semantic, ServiceEdgeRouterPolicyDetail } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import type { ServiceEdgeRouterPolicyRow } from './entity.js';

const SERP_LINKS = { 'edge-routers': 'edge-routers', services: 'services' };

export function renderServiceEdgeRouterPolicy(p: ServiceEdgeRouterPolicyRow, d: { serviceRolesDisplay: string | null; edgeRouterRolesDisplay: string | null }): ServiceEdgeRouterPolicyDetail {
  return {
    id: p.id,
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
    tags: readJson<Record<string, unknown>>(p.tags, {}),
    _links: links(`./service-edge-router-policies/${p.id}`, SERP_LINKS),
    name: p.name,
    semantic: p.semantic as Semantic,
    serviceRoles: stringSetOrNull(p.serviceRoles),
    serviceRolesDisplay: readJson<NamedRoles>(d.serviceRolesDisplay, []),
    edgeRouterRoles: stringSetOrNull(p.edgeRouterRoles),
    edgeRouterRolesDisplay: readJson<NamedRoles>(d.edgeRouterRolesDisplay, []),
  };
}
