import { links } from '../../crud/render.js';
import { readJson } from '../../lib/json.js';
import { iso } from '../../lib/time.js';
import type { RouterEnrollmentFields } from '../../enrollment/render.js';
import type { RouterDetail } from '../../generated/management-types.js';
import type { ListedRouterRow } from './entity.js';

/**
 * Never online: routers attach over a control channel this controller does not serve. The pending `trott`
 * enrollment is shown until the router enrolls; until then `fingerprint` is null, as controller v1.6.2
 * renders it (transit_router_test.go; edge routers render `""`). An edge router listed here is verified
 * and has no transit enrollment, as the controller shows a router of another kind.
 */
export function renderTransitRouter(r: ListedRouterRow, enrollment: RouterEnrollmentFields): RouterDetail {
  return {
    id: r.id,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
    tags: readJson<Record<string, unknown>>(r.tags, {}),
    _links: links(`./transit-routers/${r.id}`),
    name: r.name,
    cost: r.cost,
    noTraversal: r.noTraversal,
    disabled: r.disabled,
    isOnline: false,
    isVerified: r.isVerified,
    fingerprint: r.fingerprint ?? null,
    unverifiedCertPem: null,
    unverifiedFingerprint: null,
    ...enrollment,
  };
}
