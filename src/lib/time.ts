/** RFC 3339 UTC with exactly three fractional digits, as every timestamp in the API is rendered. */
export function iso(ms: number): string;
export function iso(ms: number | null | undefined): string | null;
export function iso(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  // Lists render two of these per row: the day's prefix is kept, and the time of day is arithmetic.
  const day = Math.floor(ms / DAY_MS);
  if (day !== lastDay || !Number.isInteger(ms)) {
    if (!Number.isInteger(ms) || ms < 0 || ms >= YEAR_10000_MS) return new Date(ms).toISOString();
    lastDay = day;
    lastPrefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
  }
  const t = ms - day * DAY_MS;
  const h = Math.floor(t / 3_600_000);
  const m = Math.floor(t / 60_000) % 60;
  const sec = Math.floor(t / 1000) % 60;
  const milli = t % 1000;
  return `${lastPrefix}${TWO[h]}:${TWO[m]}:${TWO[sec]}.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00Z: from there on toISOString widens the year, which the fast path does not. */
const YEAR_10000_MS = 253_402_300_800_000;
const TWO = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
let lastDay = NaN;
let lastPrefix = '';

/** Parses an RFC 3339 date-time into Unix milliseconds, or undefined when it is not one. */
export function parseDateTime(value: string): number | undefined {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
