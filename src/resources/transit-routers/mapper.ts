import { baseEntity } from '../../crud/render.js';
import type { RouterEnrollmentFields } from '../../enrollment/render.js';
import type { RouterDetail } from '../../generated/management-types.js';
import type { TransitRouterRow } from './entity.js';

/**
 * Never online: routers attach over a control channel this controller does not serve. The pending `trott`
 * enrollment is shown until the router enrolls.
 */
export function renderTransitRouter(r: TransitRouterRow, enrollment: RouterEnrollmentFields): RouterDetail {
  return {
    ...baseEntity(r, `./transit-routers/${r.id}`),
    name: r.name,
    cost: r.cost,
    noTraversal: r.noTraversal,
    disabled: r.disabled,
    isOnline: false,
    isVerified: r.isVerified,
    fingerprint: r.fingerprint ?? '',
    unverifiedCertPem: null,
    unverifiedFingerprint: null,
    ...enrollment,
  };
}
