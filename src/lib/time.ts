/** RFC 3339 UTC with exactly three fractional digits, as every timestamp in the API is rendered. */
export function iso(ms: number): string;
export function iso(ms: number | null | undefined): string | null;
export function iso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

/** Parses an RFC 3339 date-time into Unix milliseconds, or undefined when it is not one. */
export function parseDateTime(value: string): number | undefined {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
