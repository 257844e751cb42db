/**
 * Dial/Bind sessions (reference model-and-policies §6): create with every check in the controller's
 * order, idempotent per API session, service and type; list/detail/delete confined to the caller's own
 * sessions unless admin; a session whose posture stopped passing is removed when it is next read.
 */
import type { ListQueryParams } from '../../crud/list-query.js';
import { findEntity, listEntities, type ListResult } from '../../crud/service.js';
import { atomic } from '../../db/client.js';
import type { Deps } from '../../deps.js';
import { ApiError, fieldError, messageError, notFound } from '../../errors.js';
import type { ServiceEdgeRouters, SessionCreate, SessionDetail } from '../../generated/client-types.js';
import type { SessionManagementDetail } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import { extend } from '../../lib/objects.js';
import { mintServiceAccessToken } from '../../oidc/tokens.js';
import { affectedIdentities, markServicesChanged } from '../../policy/service-updates-repo.js';
import { evaluatePolicies, postureChecksExist, recordFailedServiceRequest, type PolicyPosture } from '../../posture/evaluate.js';
import { postureInputsOf } from '../../posture/repo.js';
import { serviceService, type ServiceCaller } from '../services/service.js';
import { sessionEntity, type SessionRow } from './entity.js';
import { renderClientSession, renderCommonRouter, renderSession, type RouterColumns } from './mapper.js';
import { deleteSessionRow, deleteSessionStatement, insertSession, probeRider, routersFor, sessionExtras, sessionProbe, sessionsOfApiSession, visibleTo, type ExistingSession } from './repo.js';
import { riddenValue, type RiddenValue } from '../../auth/session-repo.js';
import { isSessionToken, sessionToken } from './token.js';

/** Who asks: the identity, its API session, and whether it is an admin (then it sees every session). */
export interface SessionCaller {
  identityId: string;
  apiSessionId: string;
  isAdmin: boolean;
  /** Authenticated by an OIDC access token: sessions are signed service-access tokens, not rows. */
  bearer?: boolean;
  /** What the session check read along (`probeRider` for `POST /sessions`). */
  ridden?: RiddenValue;
}

type Selected = { row: SessionRow; serviceName: string | null; routers: string | null; policyNames: string | null };

async function render(deps: Deps, s: Selected): Promise<SessionManagementDetail> {
  return renderSession({ row: s.row, token: await sessionToken(deps.config.controllerSecret, s.row.id), serviceName: s.serviceName ?? '', routers: s.routers, policyNames: s.policyNames });
}

/** The policies of the type among those granting the service; with posture, those whose checks pass. */
function passing(grantIds: readonly string[], posture: ReadonlyMap<string, PolicyPosture> | undefined): string[] {
  return posture ? grantIds.filter((id) => posture.get(id)?.isPassing) : [...grantIds];
}

export { probeRider };

/**
 * `POST /sessions` (§6.1): visibility (404), permission (400), posture (409 with a failed-service-request
 * record), a shared edge router (400), then one conditional insert. A second create on the same API
 * session for the same service and type passes the same checks, then returns the first session; so do
 * concurrent ones (the unique index decides). A first session whose granting policies no longer pass
 * posture is ended instead of returned. Statements: the probe and the insert (a re-create: the probe alone), the probe riding on the session
 * check (`probeRider`) when the caller has a `zt-session`; the probe also
 * reads what posture evaluation needs, so posture checks add no statement. The answer is the client's session detail (no `servicePolicies`).
 */
export async function createSession(deps: Deps, caller: SessionCaller, body: SessionCreate): Promise<SessionDetail> {
  const type = body.type ?? 'Dial';
  if (type !== 'Dial' && type !== 'Bind') throw fieldError('type', 'type must be one of Dial or Bind', type);
  const serviceId = body.serviceId ?? '';
  if (serviceId === '') throw fieldError('serviceId', 'serviceId is required', serviceId);

  const ids = { identityId: caller.identityId, apiSessionId: caller.apiSessionId, serviceId, type };
  // Read with the session check when it rode along for this very service and type.
  const ridden = riddenValue(caller.ridden, probeRider);
  const probe = ridden !== undefined && ridden.serviceId === serviceId && ridden.type === type ? ridden.probe : await sessionProbe(deps.db, ids);
  const grants = readJson<[string, 'dial' | 'bind', string | null][]>(probe?.grants, []);
  if (!probe || (!caller.isAdmin && grants.length === 0)) throw notFound('service', serviceId);
  const lowerType = type === 'Dial' ? 'dial' : 'bind';
  const granting = grants.filter((g) => g[1] === lowerType);
  if (granting.length === 0) throw fieldError('ServiceId', 'service not found', serviceId);

  const answer = (id: string, createdAt: number, tags: string, token: string): SessionDetail =>
    renderClientSession({ id, createdAt, updatedAt: createdAt, tags, isSystem: false, apiSessionId: caller.apiSessionId, identityId: caller.identityId, serviceId, type }, token, probe.name, probe.routers);
  let existing = caller.bearer ? null : readJson<ExistingSession | null>(probe.existing, null);

  const grantingIds = granting.map((g) => g[0]);
  // The probe read the posture inputs of every policy granting the service: no further read.
  const inputs = probe.postureInputs === null ? undefined : postureInputsOf(readJson<unknown[][]>(probe.postureInputs, []));
  const posture = probe.postureChecks ? await evaluatePolicies(deps, caller.identityId, caller.apiSessionId, grantingIds, inputs) : undefined;
  const granted = passing(grantingIds, posture);
  if (existing && posture && !readJson<string[]>(existing.servicePolicies, []).some((id) => granted.includes(id))) {
    // The session this API session has is no longer granted by a passing policy (§6.4): it ends here
    // rather than being handed out again; a new one is made below if another policy passes.
    await endSessions(deps, [{ id: existing.id, identityId: caller.identityId }]);
    existing = null;
  }
  if (granted.length === 0 && posture) {
    // In id order (the grants are ordered by type, then id), those whose policy row exists.
    const policies = granting.flatMap(([policyId, , policyName]) => (policyName === null ? [] : [{ policyId, policyName }]));
    await recordFailedServiceRequest(deps, { identityId: caller.identityId, apiSessionId: caller.apiSessionId, serviceId, serviceName: probe.name, sessionType: type, policies, evaluation: posture });
    const data: Record<string, PolicyPosture['failures']> = {};
    for (const id of grantingIds) data[id] = posture.get(id)?.failures ?? [];
    throw new ApiError('INVALID_POSTURE', { message: `Failed to pass posture checks for service policies: [${grantingIds.join(' ')}]`, data });
  }
  if (probe.routers === null || probe.routers === '[]') throw new ApiError('NO_EDGE_ROUTERS_AVAILABLE');
  // Idempotent after every check (§6.1): the same API session gets its session for the service and type again.
  if (existing) return answer(existing.id, existing.createdAt, existing.tags, await sessionToken(deps.config.controllerSecret, existing.id));

  const now = deps.now();
  const tags = JSON.stringify(body.tags ?? {});
  if (caller.bearer) {
    // A bearer session gets a signed service-access token and nothing is stored (reference oidc.md §6.4).
    const sessionId = crypto.randomUUID();
    const token = await mintServiceAccessToken(deps, { identityId: caller.identityId, apiSessionId: caller.apiSessionId, serviceId, type, sessionId });
    return answer(sessionId, now, tags, token);
  }
  const id = sessionEntity.newId();
  // The token is derived on the crypto thread pool while the insert runs (handled here if it fails).
  const token = sessionToken(deps.config.controllerSecret, id);
  token.catch(() => undefined);
  if (await insertSession(deps.db, extend(ids, { id, now, tags, servicePolicies: JSON.stringify(granted) }))) return answer(id, now, tags, await token);
  // Not inserted: a concurrent create won (answer with its session), or the API session ended meanwhile.
  const won = readJson<ExistingSession | null>((await sessionProbe(deps.db, ids))?.existing, null);
  if (!won) throw new ApiError('UNAUTHORIZED');
  return answer(won.id, won.createdAt, won.tags, await sessionToken(deps.config.controllerSecret, won.id));
}

/**
 * Drops the sessions whose posture no longer passes (§6.4): none of the policies that granted a session
 * passes now. Evaluated once per identity and API session on the page; the failing ones are deleted
 * with a service-updates stamp for their identities, in one batch.
 */
async function withoutFailingPosture(deps: Deps, page: Selected[]): Promise<Selected[]> {
  if (page.length === 0 || !(await postureChecksExist(deps.db))) return page;
  const failing = await failingSessions(deps, page.map((s) => s.row));
  if (failing.size === 0) return page;
  await endSessions(deps, page.filter((s) => failing.has(s.row.id)).map((s) => s.row));
  return page.filter((s) => !failing.has(s.row.id));
}

/** Removes the sessions among `rows` whose posture fails now (the sweep); returns how many. */
export async function endFailingSessions(deps: Deps, rows: readonly SessionRow[]): Promise<number> {
  const failing = await failingSessions(deps, rows);
  if (failing.size > 0) await endSessions(deps, rows.filter((r) => failing.has(r.id)));
  return failing.size;
}

/** Ids of the sessions among `rows` none of whose granting policies passes posture now. */
async function failingSessions(deps: Deps, rows: readonly SessionRow[]): Promise<Set<string>> {
  const groups = new Map<string, SessionRow[]>();
  for (const r of rows) {
    const key = `${r.identityId}\n${r.apiSessionId}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const failing = new Set<string>();
  for (const group of groups.values()) {
    const policyIds = [...new Set(group.flatMap((r) => readJson<string[]>(r.servicePolicies, [])))];
    const posture = await evaluatePolicies(deps, group[0].identityId, group[0].apiSessionId, policyIds);
    for (const r of group) if (!readJson<string[]>(r.servicePolicies, []).some((id) => posture.get(id)?.isPassing)) failing.add(r.id);
  }
  return failing;
}

async function endSessions(deps: Deps, rows: readonly Pick<SessionRow, 'id' | 'identityId'>[]): Promise<void> {
  const now = deps.now();
  const identities = [...new Set(rows.map((r) => r.identityId))];
  await atomic(deps.db, [
    ...rows.map((r) => deleteSessionStatement(deps.db, r.id)),
    ...identities.map((id) => markServicesChanged(deps.db, now, affectedIdentities.one(id))),
  ]);
}

export async function listSessions(deps: Deps, caller: SessionCaller, list: ListQueryParams): Promise<ListResult<SessionManagementDetail>> {
  const page = await listEntities(deps, sessionEntity, list, { where: visibleTo(caller), extras: sessionExtras(), render: (r) => r as Selected });
  const kept = await withoutFailingPosture(deps, page.data);
  return { data: await Promise.all(kept.map((s) => render(deps, s))), meta: page.meta };
}

/** The session if the caller may see it (its own, or any for an admin), else 404. */
async function visibleSession(deps: Deps, caller: SessionCaller, id: string): Promise<Selected> {
  const found = (await findEntity(deps, sessionEntity, id, sessionExtras())) as Selected;
  if (!caller.isAdmin && found.row.identityId !== caller.identityId) throw notFound('session', id);
  const [kept] = await withoutFailingPosture(deps, [found]);
  if (!kept) throw notFound('session', id);
  return kept;
}

export async function detailSession(deps: Deps, caller: SessionCaller, id: string): Promise<SessionManagementDetail> {
  return render(deps, await visibleSession(deps, caller, id));
}

export async function deleteSession(deps: Deps, caller: SessionCaller, id: string): Promise<void> {
  const deleted = await deleteSessionRow(deps.db, id, visibleTo(caller));
  if (deleted.length === 0) throw notFound('session', id);
}

/** `GET /sessions/{id}/route-path`: no circuit ever uses a session here (no data plane), so it is empty. */
export async function sessionRoutePath(deps: Deps, caller: SessionCaller, id: string): Promise<{ routePath: string[] }> {
  await visibleSession(deps, caller, id);
  return { routePath: [] };
}

/**
 * Client `GET /services/{id}/edge-routers` (§4.6): 404 unless the service is visible; the routers a
 * session for it would get. A `session-token` header must be a session of the caller's API session
 * for this service, else 401.
 */
export async function serviceEdgeRouters(deps: Deps, caller: ServiceCaller, serviceId: string, presentedToken: string | undefined): Promise<ServiceEdgeRouters> {
  await serviceService.detailForCaller(deps, serviceId, caller);
  if (presentedToken !== undefined && presentedToken !== '') {
    const own = await sessionsOfApiSession(deps.db, caller.apiSessionId, serviceId);
    const matches = await Promise.all(own.map((s) => isSessionToken(deps.config.controllerSecret, s.id, presentedToken)));
    if (!matches.some(Boolean)) throw messageError('UNAUTHORIZED', 'the session token is not valid for this API session');
  }
  return { edgeRouters: readJson<RouterColumns[]>(await routersFor(deps.db, caller.identityId, serviceId), []).map(renderCommonRouter) };
}
