import { listRelated, resourceService } from '../../crud/service.js';
import type { ListQueryParams } from '../../crud/list-query.js';
import type { SQL } from '../../db/client.js';
import type { Deps } from '../../deps.js';
import { fieldError } from '../../errors.js';
import type { EdgeRouterCreate, EdgeRouterPatch } from '../../generated/management-types.js';
import { entityLinkStatements, entityRemovalStatements } from '../../policy/repo.js';
import { terminatorsOfRouter } from '../terminators/repo.js';
import { edgeRouterEntity } from './entity.js';
import { renderEdgeRouter } from './mapper.js';
import { edgeRouterRoleFilter } from './repo.js';

/**
 * Edge routers without enrolment: `isTunnelerEnabled` is refused until router enrolment and router
 * identities exist (the enrolment machinery is another part of the project), so no router is verified.
 */
function refuseTunneler(enabled: boolean | null | undefined): void {
  if (enabled) throw fieldError('isTunnelerEnabled', 'tunneler-enabled edge routers need router enrolment, which this controller does not offer yet', enabled);
}

export const edgeRouterService = resourceService(edgeRouterEntity, {
  render: (r) => renderEdgeRouter(r.row),
  listWhere: (query) => edgeRouterRoleFilter(query.roleFilter, query.roleSemantic),
  create: { check: (_deps, _values, body: EdgeRouterCreate) => refuseTunneler(body.isTunnelerEnabled), statements: (deps, id, values, now) => entityLinkStatements(deps.db, 'router', id, values.roleAttributes ?? [], now) },
  update: { check: (_deps, _values, _existing, body: EdgeRouterPatch) => refuseTunneler(body.isTunnelerEnabled), statements: (deps, existing, values, now) => (values.roleAttributes !== undefined ? entityLinkStatements(deps.db, 'router', existing.id, values.roleAttributes, now) : []) },
  remove: { cascade: (deps, existing) => [terminatorsOfRouter(deps.db, existing.id), ...entityRemovalStatements(deps.db, 'router', existing.id, deps.now())] },
});

/** An edge-router sub-list (`/identities/{id}/edge-routers`, `/edge-router-policies/{id}/edge-routers`, ...). */
export function listEdgeRoutersWhere(deps: Deps, where: SQL, query: ListQueryParams) {
  return listRelated(deps, edgeRouterEntity, query, { where, render: (r) => renderEdgeRouter(r.row) });
}
