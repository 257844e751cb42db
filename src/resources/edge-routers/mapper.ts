import { baseEntity } from '../../crud/render.js';
import type { EdgeRouterDetail } from '../../generated/management-types.js';
import type { RouterEnrollmentFields } from '../../enrollment/render.js';
import { readJson } from '../../lib/json.js';
import type { EdgeRouterRow } from './entity.js';

const VERSION_UNKNOWN = { os: '', arch: '', version: '', revision: '', buildDate: '' };

/**
 * The edgeRouterDetail shape. Routers attach over a control channel this controller does not serve, so
 * the live fields always read "never connected": offline, `SYNC_UNKNOWN`, empty versions (§9.1, §12).
 * The pending enrollment (token, JWT, times) is shown until the router enrolls.
 */
export function renderEdgeRouter(r: EdgeRouterRow, enrollment: RouterEnrollmentFields): EdgeRouterDetail {
  return {
    ...baseEntity(r, `./edge-routers/${r.id}`, { 'edge-router-policies': 'edge-router-policies' }),
    name: r.name,
    roleAttributes: readJson<string[]>(r.roleAttributes, []),
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
