/**
 * Go-style duration strings (`300ms`, `1.5h`, `2h45m`), as the controller's APIs take them: an optional
 * sign, then one or more decimal numbers each followed by a unit (`ns`, `us`, `µs`, `μs`, `ms`, `s`, `m`,
 * `h`); `0` alone is zero. Returns milliseconds (fractions kept), or undefined when the text is not one.
 */
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const PART = /^(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;

export function parseGoDuration(text: string): number | undefined {
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0;
  while (rest.length > 0) {
    const m = PART.exec(rest);
    if (!m) return undefined;
    total += Number(m[1]) * UNIT_MS[m[2]];
    rest = rest.slice(m[0].length);
  }
  return Number.isFinite(total) ? sign * total : undefined;
}
