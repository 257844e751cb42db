/**
 * The rules the three policy kinds share (reference model-and-policies §3.1–§3.2): role lists validated
 * and stored as sorted sets, `@id` entries resolved against the entity tables, and the policy's links
 * recomputed in the batch of every create and update. A PATCH merges the body into the stored policy and
 * writes the whole merged policy, so the row and its links always describe the same policy.
 */
import type { Statement } from '../crud/repo.js';
import type { Deps } from '../deps.js';
import { fieldError } from '../errors.js';
import { readJson } from '../lib/json.js';
import { missingEntityIds, policyLinkStatements, policyUnlinkStatements, ROLE_LISTS, type PolicyKind, type Role } from './repo.js';
import { normaliseSemantic, roleIds, validateRoles, type Semantic } from './roles.js';

type RoleField = 'identityRoles' | 'serviceRoles' | 'edgeRouterRoles' | 'postureCheckRoles';

const NOT_FOUND_NAME: Record<Role, string> = { identity: 'identities', service: 'services', router: 'routers', postureCheck: 'postureChecks' };

type StoredPolicy = { id: string; semantic: string; type?: string } & Partial<Record<RoleField, string>>;
type Values = Record<string, unknown>;

/** Role-list and semantic rules of a policy kind, as create/update/delete hooks of the generic engine. */
export function policyRules(kind: PolicyKind) {
  const lists: { field: RoleField; role: Role }[] = ROLE_LISTS.filter((l) => l.kind === kind).map((l) => ({ field: l.field, role: l.role }));

  /** `existing` is given on PATCH: what the body leaves out keeps its stored value. */
  async function check(deps: Deps, values: Values, existing?: StoredPolicy): Promise<void> {
    values.semantic = normaliseSemantic(values.semantic ?? existing?.semantic);
    if (kind === 'sp') {
      values.type ??= existing?.type;
      if (values.type !== 'Dial' && values.type !== 'Bind') throw fieldError('type', 'type must be one of Dial or Bind', values.type);
    }
    for (const { field, role } of lists) {
      const given = values[field];
      const roles = given === undefined || given === null ? readJson<string[]>(existing?.[field], []) : validateRoles(field, given);
      values[field] = roles;
      const missing = await missingEntityIds(deps.db, role, roleIds(roles));
      if (missing.length > 0) throw fieldError(field, `no ${NOT_FOUND_NAME[role]} found with the given ids`, missing);
    }
  }

  function links(deps: Deps, id: string, values: Values, now: number): Statement[] {
    const roles: Partial<Record<RoleField, string[]>> = {};
    for (const { field } of lists) roles[field] = values[field] as string[];
    return policyLinkStatements(deps.db, kind, id, { semantic: values.semantic as Semantic, type: values.type as 'Dial' | 'Bind' | undefined, roles }, now);
  }

  return {
    create: {
      check: (deps: Deps, values: Values) => check(deps, values),
      statements: (deps: Deps, id: string, values: Values, now: number) => links(deps, id, values, now),
    },
    update: {
      check: (deps: Deps, values: Values, existing: StoredPolicy, _body: unknown, mode: 'update' | 'patch') => check(deps, values, mode === 'patch' ? existing : undefined),
      statements: (deps: Deps, existing: StoredPolicy, values: Values, now: number) => links(deps, existing.id, values, now),
    },
    remove: { cascade: (deps: Deps, existing: StoredPolicy) => policyUnlinkStatements(deps.db, kind, existing.id, deps.now()) },
  };
}
