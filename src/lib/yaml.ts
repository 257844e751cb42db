/**
 * JSON values as YAML 1.2 block text, for the API descriptions served as `text/yaml`
 * (`GET /specs/{id}/spec`). Only what JSON has: objects, arrays, strings, finite numbers, booleans, null.
 *
 * Safe by construction rather than by cleverness:
 * - a string is written plain only when it cannot be read as anything else: a letter or `_` first, then
 *   letters, digits, `_`, `.`, `/`, `-` (no indicator, space, `:` or `#`), not a word some YAML reader
 *   takes for a boolean or null (`true`, `No`, `off`, `y`, `Null`, ...) and not a mantissa-less exponent
 *   (`e3`, which lenient YAML 1.1 readers take for a float); every other string, key or value, is
 *   double-quoted;
 * - double-quoted text escapes `"`, `\`, and every character YAML does not allow unescaped or could read
 *   as a line break (C0 and C1 controls, DEL, U+2028/U+2029, the byte-order mark, U+FFFE/U+FFFF, lone
 *   surrogates);
 * - empty objects and arrays are the flow forms `{}` and `[]`; numbers are JSON's notation, which YAML
 *   1.2's core schema reads as the same number.
 */
export function toYaml(value: unknown): string {
  const lines: string[] = [];
  if (isBlock(value)) block(value, 0, lines);
  else lines.push(scalar(value));
  return lines.join('\n') + '\n';
}

/** Words YAML 1.1 or 1.2 readers resolve to a boolean or null (compared case-insensitively). */
const RESERVED = new Set(['true', 'false', 'null', 'yes', 'no', 'on', 'off', 'y', 'n', '~']);
const PLAIN = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
const EXPONENT = /^[eE]-?[0-9]+$/;

type Container = Record<string, unknown> | unknown[];

/** A non-empty object or array: written as a block; the empty ones are written inline. */
function isBlock(value: unknown): value is Container {
  if (value === null || typeof value !== 'object') return false;
  return Array.isArray(value) ? value.length > 0 : Object.keys(value).some((k) => (value as Record<string, unknown>)[k] !== undefined);
}

function block(value: Container, indent: number, out: string[]): void {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    for (const item of value) {
      if (!isBlock(item)) {
        out.push(`${pad}- ${scalar(item === undefined ? null : item)}`);
        continue;
      }
      // The item's first line follows the dash: `- key: value` / `- - item`, the rest indented under it.
      const start = out.length;
      block(item, indent + 2, out);
      out[start] = `${pad}- ${out[start].slice(indent + 2)}`;
    }
    return;
  }
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (v === undefined) continue;
    if (isBlock(v)) {
      out.push(`${pad}${string(key)}:`);
      block(v, indent + 2, out);
    } else {
      out.push(`${pad}${string(key)}: ${scalar(v)}`);
    }
  }
}

function scalar(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return string(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return '[]';
  if (typeof value === 'object') return '{}';
  throw new TypeError(`not a JSON value: ${typeof value}`);
}

function string(s: string): string {
  return PLAIN.test(s) && !RESERVED.has(s.toLowerCase()) && !EXPONENT.test(s) ? s : quoted(s);
}

const ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f', '\0': '\\0' };

/** Characters YAML allows inside a double-quoted scalar as they are (c-printable, less the line-break look-alikes). */
function printable(cp: number): boolean {
  if (cp >= 0x20 && cp <= 0x7e) return true;
  if (cp >= 0xa0 && cp <= 0xd7ff) return cp !== 0x2028 && cp !== 0x2029;
  if (cp >= 0xe000 && cp <= 0xfffd) return cp !== 0xfeff;
  return cp >= 0x10000 && cp <= 0x10ffff;
}

function quoted(s: string): string {
  let out = '"';
  // `for..of` walks code points: a surrogate pair is one astral character, a lone surrogate stays one unit.
  for (const ch of s) {
    const escape = ESCAPES[ch];
    if (escape !== undefined) {
      out += escape;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    out += printable(cp) ? ch : `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return out + '"';
}
