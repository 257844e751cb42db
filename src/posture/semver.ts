/**
 * Semantic versions and version ranges as OS posture checks use them (reference model-and-policies §7.1,
 * §7.3), with the grammar the controller's Go semver library accepts:
 *
 * - a version is strict `MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]`: three numeric parts without leading
 *   zeros (at most 2^64-1), dot-separated pre-release and build identifiers of `[0-9A-Za-z-]`, numeric
 *   pre-release identifiers without leading zeros (`10.0.19041`, `5.15.0-91-generic`; not `11`, `v1.2.3`);
 * - a range is comparisons separated by spaces (AND), groups separated by `||` (OR, lower precedence):
 *   `>=1.2.3`, `<2.0.0`, `>=1.0.0 <2.0.0`, `<1.0.0 || >=3.0.0`, `=1.2.3`, `==1.2.3`, `1.2.3`, `!=1.2.3`,
 *   `!1.2.3`, `>1.2.3`, `<=1.2.3`; spaces may follow an operator (`>= 1.2.3`);
 * - `x` wildcards expand as that library expands them: `1.2.x` → `>=1.2.0 <1.3.0`, `1.x` → `>=1.0.0
 *   <2.0.0`, `>1.2.x` → `>=1.3.0`, `<=1.x` → `<2.0.0`, `!=1.2.x` → `<1.2.0 >=1.3.0`.
 *
 * Anything else is a `SemverError` (the controller answers an invalid range with 500; here the caller
 * turns it into 400, docs/adr/0001-controller-quirks.md).
 */

export class SemverError extends Error {}

type PreRelease = { num: bigint } | { str: string };

export interface Version {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: PreRelease[];
}

/** A parsed range: whether a version satisfies it. */
export type VersionRange = (v: Version) => boolean;

const UINT64_MAX = 2n ** 64n - 1n;
const DIGITS = /^[0-9]*$/;
const ALPHANUMERIC = /^[0-9A-Za-z-]*$/;

function number(text: string, what: string): bigint {
  if (!DIGITS.test(text)) throw new SemverError(`invalid character(s) found in ${what} number "${text}"`);
  if (text.length > 1 && text[0] === '0') throw new SemverError(`${what} number must not contain leading zeroes "${text}"`);
  if (text === '') throw new SemverError(`${what} number is empty`);
  const n = BigInt(text);
  if (n > UINT64_MAX) throw new SemverError(`${what} number "${text}" is out of range`);
  return n;
}

/** A strict semantic version; throws SemverError. */
export function parseVersion(text: string): Version {
  if (text === '') throw new SemverError('version string empty');
  const first = text.indexOf('.');
  const second = first < 0 ? -1 : text.indexOf('.', first + 1);
  if (second < 0) throw new SemverError('no Major.Minor.Patch elements found');
  const major = number(text.slice(0, first), 'major');
  const minor = number(text.slice(first + 1, second), 'minor');
  let patchText = text.slice(second + 1);
  let build: string[] = [];
  let pre: string[] = [];
  const plus = patchText.indexOf('+');
  if (plus >= 0) {
    build = patchText.slice(plus + 1).split('.');
    patchText = patchText.slice(0, plus);
  }
  const dash = patchText.indexOf('-');
  if (dash >= 0) {
    pre = patchText.slice(dash + 1).split('.');
    patchText = patchText.slice(0, dash);
  }
  const patch = number(patchText, 'patch');
  const preRelease = pre.map((p): PreRelease => {
    if (p === '') throw new SemverError('pre-release identifier is empty');
    if (DIGITS.test(p)) return { num: number(p, 'pre-release') };
    if (!ALPHANUMERIC.test(p)) throw new SemverError(`invalid character(s) found in pre-release "${p}"`);
    return { str: p };
  });
  for (const b of build) {
    if (b === '') throw new SemverError('build metadata is empty');
    if (!ALPHANUMERIC.test(b)) throw new SemverError(`invalid character(s) found in build metadata "${b}"`);
  }
  return { major, minor, patch, pre: preRelease };
}

const sign = (a: bigint, b: bigint): -1 | 0 | 1 => (a === b ? 0 : a > b ? 1 : -1);

/** -1, 0 or 1 by semantic-version precedence (build metadata does not count). */
export function compareVersions(a: Version, b: Version): -1 | 0 | 1 {
  const core = sign(a.major, b.major) || sign(a.minor, b.minor) || sign(a.patch, b.patch);
  if (core !== 0) return core;
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < a.pre.length && i < b.pre.length; i++) {
    const x = a.pre[i];
    const y = b.pre[i];
    let c: -1 | 0 | 1;
    if ('num' in x && 'num' in y) c = sign(x.num, y.num);
    else if ('num' in x) c = -1;
    else if ('num' in y) c = 1;
    else c = x.str === y.str ? 0 : x.str > y.str ? 1 : -1;
    if (c !== 0) return c;
  }
  return sign(BigInt(a.pre.length), BigInt(b.pre.length));
}

const COMPARATORS: Record<string, (c: number) => boolean> = {
  '': (c) => c === 0,
  '=': (c) => c === 0,
  '==': (c) => c === 0,
  '!': (c) => c !== 0,
  '!=': (c) => c !== 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
};

/**
 * The range's words: split at spaces, except spaces right after an operator character (`>= 1.2.3` is one
 * word), one-character words dropped, inner spaces removed — the library's tokenizer, which decides what
 * it accepts.
 */
function words(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  let previous = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === ' ' && previous !== '>' && previous !== '<' && previous !== '=') {
      if (start < i - 1) out.push(text.slice(start, i));
      start = i + 1;
    } else if (text[i] !== ' ') previous = text[i];
  }
  if (start < text.length - 1) out.push(text.slice(start));
  return out.map((w) => w.replaceAll(' ', ''));
}

/** `>=1.2.3` → [`>=`, `1.2.3`]: the operator is everything before the first digit. */
function splitOperator(word: string): [string, string] {
  const i = word.search(/[0-9]/);
  if (i < 0) throw new SemverError(`could not get version from "${word}"`);
  return [word.slice(0, i).trim(), word.slice(i)];
}

function bump(version: string, index: 0 | 1): string {
  const parts = version.split('.');
  if (!/^[+-]?[0-9]+$/.test(parts[index] ?? '')) return '';
  parts[index] = String(Number(parts[index]) + 1);
  return parts.join('.');
}

/** A word with an `x` wildcard as the comparisons it stands for. */
function expandWildcard(word: string): string[] {
  const [operator, version] = splitOperator(word);
  const parts = version.split('.');
  const kind = parts[parts.length - 1] === 'x' ? (parts.length === 3 ? 'patch' : parts.length === 2 ? 'minor' : 'major') : 'none';
  let flat = version.replace('.x.x', '.x').replace('.x', '.0');
  if (flat.split('.').length === 2) flat += '.0';
  const out: string[] = [];
  let resultOperator = '';
  let increment = false;
  switch (operator) {
    case '>':
      [resultOperator, increment] = ['>=', true];
      break;
    case '>=':
      resultOperator = '>=';
      break;
    case '<':
      resultOperator = '<';
      break;
    case '<=':
      [resultOperator, increment] = ['<', true];
      break;
    case '':
    case '=':
    case '==':
      out.push('>=' + flat);
      [resultOperator, increment] = ['<', true];
      break;
    case '!=':
    case '!':
      out.push('<' + flat);
      [resultOperator, increment] = ['>=', true];
      break;
  }
  const target = !increment ? flat : kind === 'patch' ? bump(flat, 1) : kind === 'minor' ? bump(flat, 0) : '';
  out.push(resultOperator + target);
  return out;
}

/** A version range; throws SemverError when the library would refuse it. */
export function parseRange(text: string): VersionRange {
  // The library works on bytes: any non-ASCII character ends up in a word it cannot parse.
  if (/[^\x00-\x7f]/.test(text)) throw new SemverError(`invalid character in range "${text}"`);
  const all = words(text);
  const groups: string[][] = [];
  let current: string[] = [];
  for (let i = 0; i < all.length; i++) {
    if (all[i] !== '||') {
      current.push(all[i]);
      continue;
    }
    if (i === 0) throw new SemverError("first element in range is '||'");
    if (current.length === 0) throw new SemverError("empty group between '||'");
    groups.push(current);
    current = [];
  }
  if (current.length === 0) throw new SemverError("last element in range is '||'");
  groups.push(current);

  const alternatives = groups.map((group) => {
    const tests = group
      .flatMap((word) => (word.includes('x') ? expandWildcard(word) : [word]))
      .map((word) => {
        const [operator, versionText] = splitOperator(word);
        const compare = COMPARATORS[operator];
        if (!compare) throw new SemverError(`could not parse comparator "${operator}" in "${word}"`);
        const bound = parseVersion(versionText);
        return (v: Version) => compare(compareVersions(v, bound));
      });
    return (v: Version) => tests.every((t) => t(v));
  });
  return (v) => alternatives.some((a) => a(v));
}
