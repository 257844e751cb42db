import type { Deps } from '../../deps.js';
import { enrollmentExists, mintToken, prepareEnrollment, type EnrollmentRequest } from '../../enrollment/create.js';
import { enrollmentEntity, enrollmentExtras, ofIdentity, refreshStatement, type EnrollmentRow } from '../../enrollment/repo.js';
import { jtiOf, unseal } from '../../enrollment/seal.js';
import { deleteEntity, findEntity, listEntities, listRelated, type ListResult } from '../../crud/service.js';
import { uniqueViolation, writeBatch, type Statement } from '../../crud/repo.js';
import { fieldError } from '../../errors.js';
import type { EnrollmentDetail } from '../../generated/management-types.js';
import type { ListQueryParams } from '../../crud/list-query.js';
import { parseDateTime } from '../../lib/time.js';
import { atomic } from '../../db/client.js';
import { renderEnrollment } from './mapper.js';

type Selected = { row: EnrollmentRow; identityName: string | null; caName: string | null; edgeRouterName: string | null; transitRouterName: string | null };

async function render(deps: Deps, s: Selected) {
  const jwt = await unseal(deps.config.controllerSecret, s.row.jwtSealed);
  return renderEnrollment(s.row, s, jwt, jtiOf(jwt));
}

/** Rows are selected with a sealed JWT; opening it is asynchronous, so a page is rendered in a second pass. */
async function renderPage(deps: Deps, result: ListResult): Promise<ListResult<EnrollmentDetail>> {
  return { ...result, data: await Promise.all((result.data as Selected[]).map((s) => render(deps, s))) };
}

export async function listEnrollments(deps: Deps, query: ListQueryParams): Promise<ListResult<EnrollmentDetail>> {
  return renderPage(deps, await listEntities(deps, enrollmentEntity, query, { extras: enrollmentExtras(), render: (s) => s }));
}

/** `GET /identities/{id}/enrollments`. */
export async function listIdentityEnrollments(deps: Deps, identityId: string, query: ListQueryParams): Promise<ListResult<EnrollmentDetail>> {
  return renderPage(deps, await listRelated(deps, enrollmentEntity, query, { where: ofIdentity(identityId), extras: enrollmentExtras(), render: (s) => s }));
}

export async function detailEnrollment(deps: Deps, id: string) {
  return render(deps, await findEntity(deps, enrollmentEntity, id, enrollmentExtras()));
}

export async function deleteEnrollment(deps: Deps, id: string): Promise<void> {
  await deleteEntity(deps, enrollmentEntity, id);
}

function expiry(field: string, value: string): number {
  const ms = parseDateTime(value);
  if (ms === undefined) throw fieldError(field, `${field} must be a date-time`, value);
  return ms;
}

/** Writes a new enrollment; a second one of the same method for the identity is 409 from the unique index. */
export async function writeEnrollment(deps: Deps, statements: Statement[], method: string): Promise<void> {
  try {
    await atomic(deps.db, statements);
  } catch (e) {
    if (uniqueViolation(e)?.some((c) => c.startsWith('enrollments.'))) throw enrollmentExists(method);
    throw e;
  }
}

/** `POST /enrollments` (reference §5.1). */
export async function createEnrollment(deps: Deps, body: { method: EnrollmentRequest['method']; identityId: string; expiresAt: string; caId?: string | null; username?: string | null }): Promise<string> {
  const prepared = await prepareEnrollment(deps, { ...body, expiresAt: expiry('expiresAt', body.expiresAt) });
  await writeEnrollment(deps, [prepared.statement(deps)], prepared.method);
  return prepared.id;
}

/**
 * `POST /enrollments/{id}/refresh`: a new token (the old JWT dies) and a re-signed JWT with the new expiry.
 * Router enrollments refresh too (their JWT names the router).
 */
export async function refreshEnrollment(deps: Deps, id: string, expiresAt: string): Promise<void> {
  const { row } = await findEntity(deps, enrollmentEntity, id);
  const at = expiry('expiresAt', expiresAt);
  if (at <= deps.now()) throw fieldError('expiresAt', 'expiresAt must be in the future', expiresAt);
  const minted = await mintToken(deps, row.identityId ?? row.edgeRouterId ?? row.transitRouterId ?? '', row.method, at);
  await writeBatch(deps.db, [refreshStatement(deps.db, id, { tokenHash: minted.tokenHash, jwtSealed: minted.jwtSealed, issuedAt: deps.now(), expiresAt: at })]);
}

