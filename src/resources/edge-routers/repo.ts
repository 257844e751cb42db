import type { SQL } from 'drizzle-orm';
import { compileRoleFilter } from '../../crud/list-query.js';
import { edgeRouters } from '../../db/schema/index.js';

/** The `roleFilter` / `roleSemantic` pre-selection of the edge-router list (§3.5). */
export function edgeRouterRoleFilter(roleFilter: readonly string[] | undefined, roleSemantic: string | undefined): SQL | undefined {
  return compileRoleFilter(roleFilter, roleSemantic, edgeRouters.roleAttributes, edgeRouters.id);
}
