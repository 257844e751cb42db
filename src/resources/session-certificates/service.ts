import type { Deps } from '../../deps.js';
import { listEntities, type ListResult } from '../../crud/service.js';
import { notFound } from '../../errors.js';
import { links } from '../../crud/render.js';
import type { CurrentApiSessionCertificateDetail } from '../../generated/client-types.js';
import type { RequestSession } from '../../http/session.js';
import type { ListQueryParams } from '../../crud/list-query.js';
import { shortId } from '../../lib/ids.js';
import { readJson } from '../../lib/json.js';
import { iso } from '../../lib/time.js';
import { subjectString } from '../../pki/chain.js';
import { atomic } from '../../db/client.js';
import { deleteOwn, findOwn, insertSessionCertificate, ofSession, sessionCertificateEntity, type SessionCertificateRow } from './repo.js';

export function renderSessionCertificate(row: SessionCertificateRow): CurrentApiSessionCertificateDetail {
  return {
    id: row.id,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    tags: readJson<Record<string, unknown>>(row.tags, {}),
    _links: links(`./current-api-session/certificates/${row.id}`),
    subject: row.subject,
    fingerprint: row.fingerprint,
    validFrom: iso(row.validFrom),
    validTo: iso(row.validTo),
    certificate: row.certPem,
  };
}

/**
 * `GET /current-api-session/certificates`: the caller's own session only (the controller lists every
 * session's certificates, reference §6.7 quirk; docs/adr).
 */
export function listSessionCertificates(deps: Deps, caller: RequestSession, query: ListQueryParams): Promise<ListResult<CurrentApiSessionCertificateDetail>> {
  return listEntities(deps, sessionCertificateEntity, query, { where: ofSession(caller.apiSession.id), render: (s) => renderSessionCertificate(s.row) });
}

export async function detailSessionCertificate(deps: Deps, caller: RequestSession, id: string) {
  const row = await findOwn(deps.db, caller.apiSession.id, id);
  if (!row) throw notFound('apiSessionCertificate', id);
  return renderSessionCertificate(row);
}

export async function deleteSessionCertificate(deps: Deps, caller: RequestSession, id: string): Promise<void> {
  if (!(await deleteOwn(deps.db, caller.apiSession.id, id))) throw notFound('apiSessionCertificate', id);
}

/**
 * `POST /current-api-session/certificates` (§6.7): a 12-hour client certificate for the CSR, with the
 * SPIFFE URI naming identity, session and certificate, recorded on the caller's session.
 */
export async function createSessionCertificate(deps: Deps, caller: RequestSession, csrPem: string) {
  const id = shortId();
  const now = deps.now();
  const host = deps.pki.trustDomain;
  const issued = await deps.pki.issueCertificate(csrPem, { kind: 'apiSession', spiffeUri: `${host}/identity/${caller.identity.id}/apiSession/${caller.apiSession.id}/apiSessionCertificate/${id}` }, new Date(now));
  await atomic(deps.db, [
    insertSessionCertificate(deps.db, {
      id,
      createdAt: now,
      updatedAt: now,
      tags: '{}',
      apiSessionId: caller.apiSession.id,
      identityId: caller.identity.id,
      subject: subjectString(issued.cert),
      fingerprint: issued.fingerprint,
      validFrom: issued.cert.notBefore.getTime(),
      validTo: issued.cert.notAfter.getTime(),
      certPem: issued.pem,
    }),
  ]);
  return { id, certificate: issued.chainPem, cas: deps.pki.trustBundlePem() };
}
