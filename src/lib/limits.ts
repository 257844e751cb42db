import { fieldError } from '../errors.js';

/**
 * Length caps and character rules for stored text (docs/api-conventions.md). The controller has none;
 * without them one request can store megabytes that every list then serves, and NUL or direction
 * controls make two different names look the same. Lengths count code points.
 */
export const LIMITS = {
  /** Entity names (identities, auth policies, ...), and other identifying text such as `externalId`. */
  name: 255,
  /** Tag and map keys. */
  mapKey: 128,
  /** String values in tags and maps. */
  mapString: 4096,
  /** Entries in one map. */
  mapEntries: 100,
  /** A whole map (tags, appData, ...) as stored JSON, in UTF-16 code units. */
  mapJson: 16 * 1024,
  /** One role attribute. */
  roleAttribute: 128,
  /** Role attributes of one entity. */
  roleAttributes: 100,
  /** A nested object property (config data, a config type's schema) as stored JSON. */
  objectJson: 64 * 1024,
} as const;

/**
 * C0 and C1 controls (NUL, ESC, DEL, ...), and the invisible format characters that reorder or hide text
 * (bidirectional overrides and isolates, zero-width characters, the byte-order mark).
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/u;

function length(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** A problem with a piece of text, or undefined: control characters, then the length cap. */
export function textProblem(text: string, max: number, what: string): string | undefined {
  if (CONTROL.test(text)) return `${what} must not contain control or invisible formatting characters`;
  if (text.length > max && length(text) > max) return `${what} should be at most ${max} chars long`;
  return undefined;
}

/** A name: no control characters, at most LIMITS.name characters. */
export function assertName(name: string, field = 'name'): void {
  const problem = textProblem(name, LIMITS.name, field);
  if (problem) throw fieldError(field, problem, name);
}

/** Optional identifying text (an identity's `externalId`): the same rules as a name when present. */
export function assertOptionalName(value: unknown, field: string): void {
  if (typeof value === 'string') assertName(value, field);
}

/** A username (its 4..100 length is the spec's and checked with it): no control characters. */
export function assertUsername(username: string, field = 'username'): void {
  if (CONTROL.test(username)) throw fieldError(field, `${field} must not contain control or invisible formatting characters`, username);
}

/** A flat map (tags, appData, hosting maps): bounded entries, keys, string values and total size. */
export function assertMap(map: Record<string, unknown>, field = 'tags'): void {
  const keys = Object.keys(map);
  if (keys.length > LIMITS.mapEntries) throw fieldError(field, `${field} should have at most ${LIMITS.mapEntries} entries`, `${keys.length} entries`);
  for (const key of keys) {
    const keyProblem = key === '' ? `${field} keys must not be empty` : textProblem(key, LIMITS.mapKey, `${field} keys`);
    if (keyProblem) throw fieldError(field, keyProblem, key);
    const value = map[key];
    if (typeof value === 'string' && value.length > LIMITS.mapString && length(value) > LIMITS.mapString) {
      throw fieldError(field, `${field}.${key} should be at most ${LIMITS.mapString} chars long`, value);
    }
  }
  if (JSON.stringify(map).length > LIMITS.mapJson) throw fieldError(field, `${field} should be at most ${LIMITS.mapJson} characters of JSON`, `${keys.length} entries`);
}

/** Role attributes: bounded count and length, no control characters. */
export function assertRoleAttributes(attributes: readonly string[], field = 'roleAttributes'): void {
  if (attributes.length > LIMITS.roleAttributes) throw fieldError(field, `${field} should have at most ${LIMITS.roleAttributes} items`, `${attributes.length} items`);
  for (const attribute of attributes) {
    const problem = attribute === '' ? 'role attributes must not be empty' : textProblem(attribute, LIMITS.roleAttribute, 'role attributes');
    if (problem) throw fieldError(field, problem, attribute);
  }
}

/** A nested object property (config data, a JSON schema): bounded as stored JSON. */
export function assertObject(value: Record<string, unknown>, field: string): void {
  if (JSON.stringify(value).length > LIMITS.objectJson) throw fieldError(field, `${field} should be at most ${LIMITS.objectJson} characters of JSON`);
}
