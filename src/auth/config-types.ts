import { toSet } from '../lib/json.js';

/** Config types known to the store: id -> id and name -> id. */
export type ConfigTypeCatalogue = ReadonlyMap<string, string>;

/**
 * The store has no config types yet (they arrive with the config-types resource), so every requested
 * entry other than `all` is unknown. Passing this empty catalogue is the honest answer until then; the
 * resolution rules below do not change when a real catalogue is read instead.
 */
export const NO_CONFIG_TYPES: ConfigTypeCatalogue = new Map();

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
