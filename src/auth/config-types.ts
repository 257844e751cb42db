import { toSet } from '../lib/json.js';

/** Config types known to the store: id -> id and name -> id. */
export type ConfigTypeCatalogue = ReadonlyMap<string, string>;

/**
 * The `configTypes` of an authenticate request (reference auth-and-pki §1.10): each entry is a config-type
 * id or name and is stored as the id; unknown entries are dropped silently; `all` anywhere collapses the
 * set to ["all"]. The result is a sorted set.
 */
export function resolveConfigTypes(requested: readonly unknown[] | null | undefined, catalogue: ConfigTypeCatalogue): string[] {
  const entries = (requested ?? []).filter((v): v is string => typeof v === 'string' && v.length > 0);
  if (entries.includes('all')) return ['all'];
  return toSet(entries.map((e) => catalogue.get(e)).filter((id): id is string => id !== undefined));
}
