import { createEntity, findEntity, finishedAfterRender, listRelated, resourceService, type CreateHooks, type ListResult, type ResourceService } from '../../crud/service.js';
import type { ListQueryParams } from '../../crud/list-query.js';
import { uniqueViolation } from '../../crud/repo.js';
import { checkRouterName, mappingRouterName } from '../transit-routers/repo.js';
import { atomic, type SQL } from '../../db/client.js';
import type { Deps } from '../../deps.js';
import { openRouterEnrollments, routerEnrollmentFields } from '../../enrollment/render.js';
import { prepareRouterEnrollment, reEnrollStatements, routerEnrollmentsRemoval } from '../../enrollment/router.js';
import { routerEnrollmentSummary } from '../../enrollment/router-repo.js';
import { fieldError } from '../../errors.js';
import type { EdgeRouterCreate, EdgeRouterDetail, EdgeRouterPatch } from '../../generated/management-types.js';
import { entityLinkStatements, entityRemovalStatements } from '../../policy/repo.js';
import { terminatorsOfRouter } from '../terminators/repo.js';
import { edgeRouterEntity, type EdgeRouterRow } from './entity.js';
import { renderEdgeRouter } from './mapper.js';
import { edgeRouterRoleFilter, identityNameTaken, systemPolicyName, tunnelerOffStatements, tunnelerOnStatements, tunnelerRenameStatement } from './repo.js';

const extras = () => ({ enrollment: routerEnrollmentSummary('edge') });
const render = (r: { row: EdgeRouterRow; enrollment: string | null }) => renderEdgeRouter(r.row, routerEnrollmentFields(r.enrollment));

type Values = { name?: string; isTunnelerEnabled?: boolean; roleAttributes?: string[] };

/**
 * A tunneler-enabled router's identity takes the router's name (reference model-and-policies §9.2), so the
 * name must be free among identities; a concurrent write that takes it first is caught from the index.
 */
async function checkIdentityName(deps: Deps, routerId: string, tunneler: boolean, name: string): Promise<void> {
  if (tunneler && (await identityNameTaken(deps.db, name, routerId))) throw identityNameError(name);
}

function identityNameError(name: string) {
  return fieldError('name', 'name must be unique: a tunneler-enabled edge router gives its identity its name, and an identity has this name', name);
}

/** The tunneler's identity and system policy follow the flag and the name this write leaves (§9.2). */
function tunnelerStatements(deps: Deps, routerId: string, values: Values, now: number) {
  if (values.isTunnelerEnabled === true) return tunnelerOnStatements(deps.db, routerId, now);
  if (values.isTunnelerEnabled === false) return tunnelerOffStatements(deps.db, routerId, now);
  return values.name !== undefined ? [tunnelerRenameStatement(deps.db, routerId, now)] : [];
}

/** Runs a router write; a router, identity or system-policy name taken concurrently is the same 400 as the check's. */
async function mappingNames<T>(routerId: string, name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await mappingRouterName(name, write);
  } catch (e) {
    const failed = uniqueViolation(e);
    if (failed?.includes('identities.name')) throw identityNameError(name ?? '');
    if (failed?.includes('edge_router_policies.name')) throw fieldError('isTunnelerEnabled', `the system edge router policy name ${systemPolicyName(routerId)} is taken`, true);
    throw e;
  }
}

const createHooks: CreateHooks<typeof edgeRouterEntity.table, typeof edgeRouterEntity.props, EdgeRouterCreate> = {
  // Edge and transit routers share one name index in the controller (§2.5).
  check: (deps, values) => checkRouterName(deps.db, values.name),
  statements: (deps, id, values, now) => [...entityLinkStatements(deps.db, 'router', id, values.roleAttributes ?? [], now), ...(values.isTunnelerEnabled ? tunnelerOnStatements(deps.db, id, now) : [])],
};

const base = resourceService(edgeRouterEntity, {
  extras,
  render,
  listWhere: (query) => edgeRouterRoleFilter(query.roleFilter, query.roleSemantic),
  update: {
    async check(deps, values, existing) {
      if (values.name !== existing.name) await checkRouterName(deps.db, values.name, existing.id);
      const tunneler = values.isTunnelerEnabled ?? existing.isTunnelerEnabled;
      const name = values.name ?? existing.name;
      if (tunneler && (!existing.isTunnelerEnabled || name !== existing.name)) await checkIdentityName(deps, existing.id, true, name);
    },
    statements: (deps, existing, values, now) => [
      ...(values.roleAttributes !== undefined ? entityLinkStatements(deps.db, 'router', existing.id, values.roleAttributes, now) : []),
      ...tunnelerStatements(deps, existing.id, values, now),
    ],
  },
  // Deleting a router deletes its terminators, enrollments, links and `@id` entries, and its tunneler identity and policy (§9.1).
  remove: {
    cascade: (deps, existing) => [
      terminatorsOfRouter(deps.db, existing.id),
      ...entityRemovalStatements(deps.db, 'router', existing.id, deps.now()),
      routerEnrollmentsRemoval(deps, 'edge', existing.id),
      ...tunnelerOffStatements(deps.db, existing.id, deps.now()),
    ],
  },
});

/**
 * Edge routers (reference model-and-policies §9.1, §9.2; auth-and-pki §5.1): CRUD with an `erott`
 * enrollment written in the create's batch, the pending enrollment's sealed JWT opened after rendering,
 * and a tunneler-enabled router's identity and system policy kept in each write's batch.
 */
export const edgeRouterService: ResourceService<EdgeRouterDetail, EdgeRouterCreate, EdgeRouterPatch> = {
  ...base,
  ...finishedAfterRender(base, openRouterEnrollments),
  async create(deps, body) {
    // The id is chosen first: the enrollment JWT names it as its subject.
    const id = edgeRouterEntity.newId();
    await checkIdentityName(deps, id, body?.isTunnelerEnabled === true, body?.name ?? '');
    const enrollment = await prepareRouterEnrollment(deps, 'edge', id);
    return mappingNames(id, body?.name, () =>
      createEntity(deps, { ...edgeRouterEntity, newId: () => id }, body, {
        ...createHooks,
        statements: (d, newId, values, now) => [...(createHooks.statements?.(d, newId, values, now) ?? []), enrollment.statement(deps)],
      }),
    );
  },
  update: (deps, id, body, mode) => mappingNames(id, body?.name ?? undefined, () => base.update(deps, id, body, mode)),
};

/**
 * `POST /edge-routers/{id}/re-enroll` (§9.1): in one batch the router's enrollments are replaced by a new
 * `erott` enrollment and its certificate, fingerprint and verified flag are cleared; its old certificate
 * no longer names it, and the previous enrollment token no longer enrolls it.
 */
export async function reEnrollEdgeRouter(deps: Deps, id: string): Promise<void> {
  await findEntity(deps, edgeRouterEntity, id);
  const enrollment = await prepareRouterEnrollment(deps, 'edge', id);
  await atomic(deps.db, reEnrollStatements(deps, 'edge', id, enrollment));
}

/** An edge-router sub-list (`/identities/{id}/edge-routers`, `/edge-router-policies/{id}/edge-routers`, ...). */
export async function listEdgeRoutersWhere(deps: Deps, where: SQL, query: ListQueryParams): Promise<ListResult<EdgeRouterDetail>> {
  const result = await listRelated(deps, edgeRouterEntity, query, { where, extras: extras(), render });
  await openRouterEnrollments(deps, result.data);
  return result;
}
