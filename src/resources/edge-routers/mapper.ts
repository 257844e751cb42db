import { links, stringSetOrNull } from '../../crud/render.js';
import { iso } from '../../lib/time.js';
import type { EdgeRouterDetail } from '../../generated/management-types.js';
import type { RouterEnrollmentFields } from '../../enrollment/render.js';
import { readJson } from '../../lib/json.js';
import type { EdgeRouterRow } from './entity.js';

const VERSION_UNKNOWN = { os: '', arch: '', version: '', revision: '', buildDate: '' };

const EDGE_ROUTER_LINKS = { 'edge-router-policies': 'edge-router-policies' };

/**
 * The edgeRouterDetail shape. Routers attach over a control channel this controller does not serve, so
 * the live fields always read "never connected": offline, `SYNC_UNKNOWN`, empty versions (§9.1, §12).
 * The pending enrollment (token, JWT, times) is shown until the router enrolls.
 */
export function renderEdgeRouter(r: EdgeRouterRow, enrollment: RouterEnrollmentFields): EdgeRouterDetail {
  return {
    id: r.id,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
    tags: readJson<Record<string, unknown>>(r.tags, {}),
    _links: links(`./edge-routers/${r.id}`, EDGE_ROUTER_LINKS),
    name: r.name,
    roleAttributes: stringSetOrNull(r.roleAttributes),
    cost: r.cost,
    noTraversal: r.noTraversal,
    disabled: r.disabled,
    appData: readJson(r.appData, {}),
    isTunnelerEnabled: r.isTunnelerEnabled,
    isVerified: r.isVerified,
    isOnline: false,
    hostname: '',
    supportedProtocols: {},
    syncStatus: 'SYNC_UNKNOWN',
    versionInfo: VERSION_UNKNOWN,
    ...VERSION_UNKNOWN,
    fingerprint: r.fingerprint ?? '',
    certPem: r.certPem,
    unverifiedCertPem: null,
    unverifiedFingerprint: null,
    ...enrollment,
  };
}
