/** Parses JSON stored by the project itself; a corrupt value reads as the fallback instead of failing a request. */
export function readJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  // The stored empty values, by far the most common ones (tags, lists), without the parser.
  if (text === '[]') return [] as T;
  if (text === '{}') return {} as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** Sorted, de-duplicated copy of a string list: role attributes and role lists are stored as sets. */
export function toSet(values: readonly string[] | null | undefined): string[] {
  return [...new Set(values ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
