import { entityRef, links } from '../../crud/render.js';
import { iso } from '../../lib/time.js';
import type { CommonEdgeRouterProperties, SessionDetail, SessionEdgeRouter } from '../../generated/client-types.js';
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

/** A session's routers: the common properties and `urls`, the deprecated copy of `supportedProtocols`. */
export function renderSessionRouters(json: string | null): SessionEdgeRouter[] {
  // Onto the fresh object: a spread would copy it again.
  return readJson<RouterColumns[]>(json, []).map((r) => Object.assign(renderCommonRouter(r), { urls: {} }));
}

export interface SessionView {
  row: { id: string; createdAt: number; updatedAt: number; tags: string; isSystem: boolean; apiSessionId: string; identityId: string; serviceId: string; type: 'Dial' | 'Bind' };
  token: string;
  serviceName: string;
  routers: string | null;
  /** `[id, name]` of the service policies that granted it (management detail). */
  policyNames: string | null;
}

const SESSION_LINKS = { 'route-path': 'route-path' };

/** The client's session detail (§6.1): what `POST /sessions` answers. */
export function renderClientSession(row: SessionView['row'], token: string, serviceName: string, routers: string | null): SessionDetail {
  return sessionLiteral(row, token, serviceName, routers, undefined);
}

/** The session detail; the management detail adds the granting `servicePolicies` (§6.3). */
export function renderSession(s: SessionView): SessionManagementDetail {
  const policies = readJson<[string, string][]>(s.policyNames, []).map(([id, name]) => entityRef('service-policies', id, name));
  return sessionLiteral(s.row, s.token, s.serviceName, s.routers, policies) as SessionManagementDetail;
}

/** One literal for both views (`servicePolicies` undefined, so left out of the client's JSON): no spread of one view into the other (docs/architecture.md, "Rendering"). */
function sessionLiteral(row: SessionView['row'], token: string, serviceName: string, routers: string | null, servicePolicies: SessionManagementDetail['servicePolicies'] | undefined): SessionDetail & { servicePolicies?: SessionManagementDetail['servicePolicies'] } {
  return {
    id: row.id,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    tags: readJson<Record<string, unknown>>(row.tags, {}),
    _links: links(`./sessions/${row.id}`, SESSION_LINKS),
    type: row.type,
    token,
    serviceId: row.serviceId,
    service: entityRef('services', row.serviceId, serviceName),
    apiSessionId: row.apiSessionId,
    apiSession: entityRef('api-sessions', row.apiSessionId, row.apiSessionId),
    identityId: row.identityId,
    edgeRouters: renderSessionRouters(routers),
    servicePolicies,
  };
}
