import { baseEntity, entityRef } from '../../crud/render.js';
import type { CommonEdgeRouterProperties, SessionEdgeRouter } from '../../generated/client-types.js';
import type { SessionManagementDetail } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';

/** A router as `sessionRouters` selects it. */
export interface RouterColumns {
  id: string;
  name: string;
  cost: number;
  noTraversal: number;
  disabled: number;
  appData: Record<string, unknown> | null;
}

/**
 * The common edge router properties (§6.2). Routers attach over a control channel this controller does
 * not serve, so each reads as never connected: no hostname, no protocols, offline, `SYNC_UNKNOWN`.
 */
export function renderCommonRouter(r: RouterColumns): CommonEdgeRouterProperties {
  return { name: r.name, hostname: '', isOnline: false, supportedProtocols: {}, syncStatus: 'SYNC_UNKNOWN', cost: r.cost, noTraversal: Boolean(r.noTraversal), disabled: Boolean(r.disabled), appData: r.appData ?? {} };
}

export function renderSessionRouters(json: string | null): SessionEdgeRouter[] {
  return readJson<RouterColumns[]>(json, []).map((r) => ({ ...renderCommonRouter(r), urls: {} }));
}

export interface SessionView {
  row: { id: string; createdAt: number; updatedAt: number; tags: string; isSystem: boolean; apiSessionId: string; identityId: string; serviceId: string; type: 'Dial' | 'Bind' };
  token: string;
  serviceName: string;
  routers: string | null;
  /** `[id, name]` of the service policies that granted it (management detail). */
  policyNames: string | null;
}

/** The session detail; the management detail adds the granting `servicePolicies` (§6.3). */
export function renderSession(s: SessionView): SessionManagementDetail {
  const { row } = s;
  return {
    ...baseEntity(row, `./sessions/${row.id}`, { 'route-path': 'route-path' }),
    type: row.type,
    token: s.token,
    serviceId: row.serviceId,
    service: entityRef('services', row.serviceId, s.serviceName),
    apiSessionId: row.apiSessionId,
    apiSession: entityRef('api-sessions', row.apiSessionId, row.apiSessionId),
    identityId: row.identityId,
    edgeRouters: renderSessionRouters(s.routers),
    servicePolicies: readJson<[string, string][]>(s.policyNames, []).map(([id, name]) => entityRef('service-policies', id, name)),
  };
}
