import type { ListQueryParams } from '../../crud/list-query.js';
import { links } from '../../crud/render.js';
import { iso } from '../../lib/time.js';
import { listRelated, type ListResult } from '../../crud/service.js';
import type { Deps } from '../../deps.js';
import type { CurrentIdentityEdgeRouterDetail } from '../../generated/client-types.js';
import type { RequestSession } from '../../http/session.js';
import { readJson } from '../../lib/json.js';
import { verifiedRouters } from './repo.js';
import { edgeRouterEntity } from '../edge-routers/entity.js';
import { renderCommonRouter } from '../sessions/mapper.js';

/**
 * Client `GET /current-identity/edge-routers` (§3.3 b): the verified routers an edge router policy gives
 * the caller, or every verified router for an admin.
 */
export function currentIdentityEdgeRouters(deps: Deps, caller: RequestSession, list: ListQueryParams): Promise<ListResult<CurrentIdentityEdgeRouterDetail>> {
  return listRelated(deps, edgeRouterEntity, list, {
    where: verifiedRouters(caller.isAdmin ? undefined : caller.identity.id),
    render: ({ row: r }) => ({
      id: r.id,
      createdAt: iso(r.createdAt),
      updatedAt: iso(r.updatedAt),
      tags: readJson<Record<string, unknown>>(r.tags, {}),
      _links: links(`./edge-routers/${r.id}`),
      ...renderCommonRouter({ id: r.id, name: r.name, cost: r.cost, noTraversal: Number(r.noTraversal), disabled: Number(r.disabled), appData: readJson(r.appData, {}) }),
    }),
  });
}
