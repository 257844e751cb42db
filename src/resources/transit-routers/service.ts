import { createEntity, finishedAfterRender, resourceService, type ResourceService } from '../../crud/service.js';
import { openRouterEnrollments, routerEnrollmentFields } from '../../enrollment/render.js';
import { prepareRouterEnrollment, routerEnrollmentsRemoval } from '../../enrollment/router.js';
import { routerEnrollmentSummary } from '../../enrollment/router-repo.js';
import type { RouterCreate, RouterDetail, RouterPatch } from '../../generated/management-types.js';
import { terminatorsOfRouter } from '../terminators/repo.js';
import { transitRouterEntity } from './entity.js';
import { renderTransitRouter } from './mapper.js';

const createHooks = {
  // The create mapping of the controller takes only name, cost and noTraversal (§9.3): tags and disabled are dropped.
  check(_deps: unknown, values: { tags?: unknown; disabled?: boolean }) {
    values.tags = {};
    values.disabled = false;
  },
};

const base = resourceService(transitRouterEntity, {
  extras: () => ({ enrollment: routerEnrollmentSummary('transit') }),
  render: (r) => renderTransitRouter(r.row, routerEnrollmentFields(r.enrollment)),
  create: createHooks,
  // Deleting a router deletes its terminators (§9.4) and its enrollments.
  remove: { cascade: (deps, existing) => [terminatorsOfRouter(deps.db, existing.id), routerEnrollmentsRemoval(deps, 'transit', existing.id)] },
});

/**
 * Transit routers (§9.3), `/transit-routers` and `/routers`: CRUD with a `trott` enrollment written in the
 * create's batch (reference auth-and-pki §5.1, §5.8), its sealed JWT opened after rendering.
 */
export const transitRouterService: ResourceService<RouterDetail, RouterCreate, RouterPatch> = {
  ...base,
  ...finishedAfterRender(base, openRouterEnrollments),
  async create(deps, body) {
    // The id is chosen first: the enrollment JWT names it as its subject.
    const id = transitRouterEntity.newId();
    const enrollment = await prepareRouterEnrollment(deps, 'transit', id);
    return createEntity(deps, { ...transitRouterEntity, newId: () => id }, body, { ...createHooks, statements: (d) => [enrollment.statement(d)] });
  },
};
