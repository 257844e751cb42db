import { baseEntity } from '../../crud/render.js';
import type { NamedRoles, Semantic, ServiceEdgeRouterPolicyDetail } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import type { ServiceEdgeRouterPolicyRow } from './entity.js';

export function renderServiceEdgeRouterPolicy(p: ServiceEdgeRouterPolicyRow, d: { serviceRolesDisplay: string | null; edgeRouterRolesDisplay: string | null }): ServiceEdgeRouterPolicyDetail {
  return {
    ...baseEntity(p, `./service-edge-router-policies/${p.id}`, { 'edge-routers': 'edge-routers', services: 'services' }),
    name: p.name,
    semantic: p.semantic as Semantic,
    serviceRoles: readJson<string[]>(p.serviceRoles, []),
    serviceRolesDisplay: readJson<NamedRoles>(d.serviceRolesDisplay, []),
    edgeRouterRoles: readJson<string[]>(p.edgeRouterRoles, []),
    edgeRouterRolesDisplay: readJson<NamedRoles>(d.edgeRouterRolesDisplay, []),
  };
}
