import { entityRef, links } from '../../http/envelope.js';
import { readJson } from '../../lib/json.js';
import { iso } from '../../lib/time.js';
import type { EnrollmentRow } from '../../enrollment/repo.js';

/**
 * `enrollmentDetail` (reference auth-and-pki §5.1): empty references omitted; `username` is not rendered,
 * as the controller does. `jwt` and `token` are the opened, signed JWT and its `jti`.
 */
export function renderEnrollment(row: EnrollmentRow, names: { identityName: string | null; caName: string | null }, jwt: string, token: string) {
  const nested: Record<string, string> = {};
  if (row.identityId) nested.identities = `./identities/${row.identityId}`;
  if (row.caId) nested.cas = `./cas/${row.caId}`;
  const out: Record<string, unknown> = {
    id: row.id,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    tags: readJson(row.tags, {}),
    _links: links(`./enrollments/${row.id}`, nested),
    method: row.method,
    token,
    jwt,
    expiresAt: iso(row.expiresAt),
  };
  if (row.identityId) {
    out.identityId = row.identityId;
    out.identity = entityRef('identities', row.identityId, names.identityName ?? '');
  }
  if (row.caId) {
    out.caId = row.caId;
    out.ca = entityRef('cas', row.caId, names.caName ?? '');
  }
  return out;
}
