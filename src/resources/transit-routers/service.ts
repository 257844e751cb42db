import { createEntity, deleteEntity, finishedAfterRender, resourceService, updateEntity, type DeleteHooks, type ResourceService, type UpdateHooks } from '../../crud/service.js';
import { allRouters } from '../../db/router-list.js';
import { openRouterEnrollments, routerEnrollmentFields } from '../../enrollment/render.js';
import { prepareRouterEnrollment, routerEnrollmentsRemoval } from '../../enrollment/router.js';
import { routerEnrollmentSummary } from '../../enrollment/router-repo.js';
import { ApiError } from '../../errors.js';
import type { RouterCreate, RouterDetail, RouterPatch } from '../../generated/management-types.js';
import type { Deps } from '../../deps.js';
import { edgeRouterService } from '../edge-routers/service.js';
import { terminatorsOfRouter } from '../terminators/repo.js';
import { listedRouterEntity, transitRouterEntity } from './entity.js';
import { renderTransitRouter } from './mapper.js';
import { checkRouterName, mappingRouterName } from './repo.js';
import { edgeRouterExists } from '../edge-routers/repo.js';

const createHooks = {
  // The create mapping of the controller takes only name, cost and noTraversal (§9.3): tags and disabled are dropped.
  async check(deps: Deps, values: { name?: string; tags?: unknown; disabled?: boolean }) {
    values.tags = {};
    values.disabled = false;
    await checkRouterName(deps.db, values.name);
  },
};

/** Lists and details read every router, edge routers included (src/db/router-list.ts). */
const reads = resourceService(listedRouterEntity, {
  extras: () => ({ enrollment: routerEnrollmentSummary('transit', allRouters.id) }),
  render: (r) => renderTransitRouter(r.row, routerEnrollmentFields(r.enrollment)),
});

const updateHooks: UpdateHooks<typeof transitRouterEntity.table, typeof transitRouterEntity.props, RouterPatch> = {
  async check(deps, values, existing) {
    if (values.name !== existing.name) await checkRouterName(deps.db, values.name, existing.id);
  },
};

// Deleting a router deletes its terminators (§9.4) and its enrollments.
const removeHooks: DeleteHooks<{ id: string }> = {
  cascade: (deps, existing) => [terminatorsOfRouter(deps.db, existing.id), routerEnrollmentsRemoval(deps, 'transit', existing.id)],
};

/**
 * Runs a write on the transit router `id`; when there is none and `id` is an edge router (listed here as
 * a router of another kind), runs `onEdgeRouter` instead.
 */
async function orOnEdgeRouter(deps: Deps, id: string, write: () => Promise<void>, onEdgeRouter: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (e) {
    if (e instanceof ApiError && e.code === 'NOT_FOUND' && (await edgeRouterExists(deps.db, id))) return onEdgeRouter();
    throw e;
  }
}

/**
 * Transit routers (§9.3), `/transit-routers` and `/routers`: CRUD with a `trott` enrollment written in the
 * create's batch (reference auth-and-pki §5.1, §5.8), its sealed JWT opened after rendering. Lists and
 * details show every router; an edge router here cannot be updated (409), and deleting it deletes the edge
 * router, as deleting a router does in the controller.
 */
export const transitRouterService: ResourceService<RouterDetail, RouterCreate, RouterPatch> = {
  ...reads,
  ...finishedAfterRender(reads, openRouterEnrollments),
  async create(deps, body) {
    // The id is chosen first: the enrollment JWT names it as its subject.
    const id = transitRouterEntity.newId();
    const enrollment = await prepareRouterEnrollment(deps, 'transit', id);
    return mappingRouterName(body?.name, () => createEntity(deps, { ...transitRouterEntity, newId: () => id }, body, { ...createHooks, statements: (d) => [enrollment.statement(d)] }));
  },
  // An edge router is changed through `/edge-routers` only: 409, as the controller refuses a router of another kind here.
  update: (deps, id, body, mode) =>
    orOnEdgeRouter(
      deps,
      id,
      () => mappingRouterName(body?.name ?? undefined, () => updateEntity(deps, transitRouterEntity, id, body, mode, updateHooks)),
      () => Promise.reject(new ApiError('CAN_NOT_UPDATE_ROUTER')),
    ),
  // Deleting an edge router here deletes it, as deleting a router does in the controller.
  remove: (deps, id) => orOnEdgeRouter(deps, id, () => deleteEntity(deps, transitRouterEntity, id, removeHooks), () => edgeRouterService.remove(deps, id)),
};
