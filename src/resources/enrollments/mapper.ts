import { entityRef, links } from '../../crud/render.js';
import type { EnrollmentDetail, EntityRef } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import { iso } from '../../lib/time.js';
import type { EnrollmentRow } from '../../enrollment/repo.js';

/**
 * `enrollmentDetail` (reference auth-and-pki §5.1): the owner (identity, edge router or transit router) and
 * the CA as references, empty ones omitted; `username` is not rendered, as the controller does. `jwt` and
 * `token` are the opened, signed JWT and its `jti`.
 */
export function renderEnrollment(
  row: EnrollmentRow,
  names: { identityName: string | null; caName: string | null; edgeRouterName: string | null; transitRouterName: string | null },
  jwt: string,
  token: string,
): EnrollmentDetail {
  const nested: Record<string, string> = {};
  if (row.identityId) nested.identities = `./identities/${row.identityId}`;
  if (row.caId) nested.cas = `./cas/${row.caId}`;
  if (row.edgeRouterId) nested['edge-routers'] = `./edge-routers/${row.edgeRouterId}`;
  if (row.transitRouterId) nested['transit-routers'] = `./transit-routers/${row.transitRouterId}`;
  const out: EnrollmentDetail & { ca?: EntityRef } = {
    id: row.id,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    tags: readJson<Record<string, unknown>>(row.tags, {}),
    _links: links(`./enrollments/${row.id}`, nested),
    method: row.method,
    token,
    jwt,
    expiresAt: iso(row.expiresAt),
    // Required by the specification, which declares nothing in it: no method here has details to show.
    details: {},
  };
  if (row.identityId) {
    out.identityId = row.identityId;
    out.identity = entityRef('identities', row.identityId, names.identityName ?? '');
  }
  if (row.edgeRouterId) {
    out.edgeRouterId = row.edgeRouterId;
    out.edgeRouter = entityRef('edge-routers', row.edgeRouterId, names.edgeRouterName ?? '');
  }
  if (row.transitRouterId) {
    out.transitRouterId = row.transitRouterId;
    out.transitRouter = entityRef('transit-routers', row.transitRouterId, names.transitRouterName ?? '');
  }
  if (row.caId) {
    out.caId = row.caId;
    out.ca = entityRef('cas', row.caId, names.caName ?? '');
  }
  return out;
}
