import { resourceService } from '../../crud/service.js';
import { terminatorsOfRouter } from '../terminators/repo.js';
import { transitRouterEntity } from './entity.js';
import { renderTransitRouter } from './mapper.js';

/**
 * Transit routers without enrolment (`trott` comes with the router enrolment machinery). The create
 * mapping of the controller takes only name, cost and noTraversal (§9.3): tags and disabled are dropped.
 */
export const transitRouterService = resourceService(transitRouterEntity, {
  render: (r) => renderTransitRouter(r.row),
  create: {
    check(_deps, values) {
      values.tags = {};
      values.disabled = false;
    },
  },
  // Deleting a router deletes its terminators (§9.4).
  remove: { cascade: (deps, existing) => [terminatorsOfRouter(deps.db, existing.id)] },
});
