import { listMeta, resolveListQuery, type ListQueryParams } from '../crud/list-query.js';
import type { ListResult } from '../crud/service.js';
import type { Deps } from '../deps.js';
import { listRoleAttributesOf, roleAttributeFields, type Role } from './repo.js';

/**
 * `GET /service-role-attributes`, `/edge-router-role-attributes` (§3.4): distinct attributes ascending,
 * filter on `id` only; only the filter's own `limit`/`skip`/`sort by` apply, as for identities.
 */
export async function listRoleAttributes(deps: Deps, role: Role, query: ListQueryParams): Promise<ListResult<string>> {
  const q = resolveListQuery(query, roleAttributeFields, { filterPagingOnly: true });
  const { values, total } = await listRoleAttributesOf(deps.db, role, q);
  return { data: values, meta: listMeta(total, q.limit, q.offset, ['id']) };
}
