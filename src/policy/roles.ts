/**
 * Policy role lists (reference model-and-policies §3.1): `#attr`, `@id`, `#all`. Pure validation; the
 * matching itself runs in SQL (src/policy/repo.ts) so that links are computed where the rows are.
 */
import { fieldError } from '../errors.js';
import { toSet } from '../lib/json.js';

export type Semantic = 'AllOf' | 'AnyOf';

/** The semantic as stored: compared case-insensitively, missing means AllOf (§3.2). */
export function normaliseSemantic(value: unknown): Semantic {
  if (value === undefined || value === null || value === '') return 'AllOf';
  const s = String(value).toLowerCase();
  if (s === 'allof') return 'AllOf';
  if (s === 'anyof') return 'AnyOf';
  throw fieldError('semantic', 'invalid semantic, must be one of AllOf or AnyOf', value);
}

/** A role list as a sorted set, each entry `#…` or `@…`, `#all` alone. */
export function validateRoles(field: string, value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw fieldError(field, `${field} must be a list of strings`, value);
  const roles = toSet(value as string[]);
  const bad = roles.filter((r) => !r.startsWith('#') && !r.startsWith('@'));
  if (bad.length > 0) throw fieldError(field, 'role entries must prefixed with # (to indicate role attributes) or @ (to indicate a name or id)', bad);
  if (roles.includes('#all') && roles.length > 1) throw fieldError(field, 'if using #all, it should be the only role specified', roles);
  return roles;
}

/** The ids referenced by `@id` entries. */
export function roleIds(roles: readonly string[]): string[] {
  return roles.filter((r) => r.startsWith('@')).map((r) => r.slice(1));
}

/** The attributes referenced by `#attr` entries (`all` included). */
export function roleAttrs(roles: readonly string[]): string[] {
  return roles.filter((r) => r.startsWith('#')).map((r) => r.slice(1));
}
