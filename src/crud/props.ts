/**
 * Writable properties of an entity: how a request body becomes column values (reference
 * model-and-policies §2.5–§2.8). Declared once per entity, keyed by the body's JSON path and typed
 * against the entity's table, so that a misspelt column does not compile.
 */
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { fieldError } from '../errors.js';
import { toSet } from '../lib/json.js';
import { assertMap, assertName, assertObject, assertRoleAttributes } from '../lib/limits.js';

/**
 * - `name`: required, non-empty string (400 `name is required`); no trimming, as the controller;
 * - `string` / `bool` / `int`: as given, zero value `''` / `false` / `0`;
 * - `nullableString`: empty or blank → null (externalId);
 * - `map`: a flat JSON object (tags, appData, hosting maps), replaced as a whole;
 * - `object`: a nested JSON object (config data, config-type schema, posture data), replaced as a whole;
 * - `attributes`: role attributes, validated and kept as a sorted set;
 * - `json`: any JSON value (lists such as allowed signers).
 *
 * `map`, `object`, `attributes` and `json` are stored as JSON text; hooks see them decoded.
 */
export type PropKind = 'name' | 'string' | 'nullableString' | 'bool' | 'int' | 'map' | 'object' | 'attributes' | 'json';

/** The decoded value of each kind, as hooks see it. */
export interface KindValues {
  name: string;
  string: string;
  nullableString: string | null;
  bool: boolean;
  int: number;
  map: Record<string, unknown>;
  object: Record<string, unknown>;
  attributes: string[];
  json: unknown;
}

/** The columns of a table, by their drizzle property names. */
export type ColumnOf<T extends SQLiteTable> = keyof T['$inferInsert'] & string;

/** One writable property: the column it is stored in, its kind, its zero value and a normaliser. */
export type Prop<T extends SQLiteTable> = {
  [K in PropKind]: {
    column: ColumnOf<T>;
    kind: K;
    /** Written by create and PUT when the property is absent or null. Defaults per kind. */
    zero?: KindValues[K];
    /** Applied to the value on every write (normalisation, defaults for blank values). */
    convert?: (value: KindValues[K]) => KindValues[K];
  };
}[PropKind];

/** Writable properties keyed by their JSON path in the request body (`primary.updb.maxAttempts`). */
export type Props<T extends SQLiteTable> = Record<string, Prop<T>>;

/** The decoded values a write computes from a body, keyed by column. */
export type WriteValues<T extends SQLiteTable, P extends Props<T>> = {
  [K in keyof P as P[K]['column']]?: KindValues[P[K]['kind']];
} & Partial<Record<ColumnOf<T>, unknown>>;

export type WriteMode = 'create' | 'update' | 'patch';

const ZERO: { [K in PropKind]: () => KindValues[K] } = {
  name: () => '',
  string: () => '',
  nullableString: () => null,
  bool: () => false,
  int: () => 0,
  map: () => ({}),
  object: () => ({}),
  attributes: () => [],
  json: () => null,
};

/** The kinds stored as JSON text. */
const JSON_KINDS: ReadonlySet<PropKind> = new Set(['map', 'object', 'attributes', 'json']);

/** The value at a dotted path; undefined when any segment is absent or null. */
function valueAt(body: unknown, path: string): unknown {
  let v: unknown = body;
  for (const key of path.split('.')) {
    if (v === null || v === undefined || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v === null ? undefined : v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Decoded column values for a write (§2.7). create and update (PUT) write every property, absent ones as
 * their zero value; patch writes only present, non-null ones, and a map or object only when it has at
 * least one key (`"tags": {}` and `"schema": null` leave them alone; `"roleAttributes": []` clears).
 */
export function writeValues<T extends SQLiteTable, P extends Props<T>>(props: P, body: unknown, mode: WriteMode): WriteValues<T, P> {
  const out: Record<string, unknown> = {};
  for (const [path, prop] of Object.entries(props)) {
    const raw = valueAt(body, path);
    if (mode === 'patch') {
      if (raw === undefined) continue;
      if ((prop.kind === 'map' || prop.kind === 'object') && isObject(raw) && Object.keys(raw).length === 0) continue;
    }
    const value = raw === undefined ? (prop.zero !== undefined ? prop.zero : ZERO[prop.kind]()) : raw;
    const checked = checkKind(prop.kind, path, value);
    out[prop.column] = prop.convert ? (prop.convert as (v: unknown) => unknown)(checked) : checked;
  }
  return out as WriteValues<T, P>;
}

/** Column values as stored: JSON kinds become JSON text. Other columns (ids, timestamps) pass through. */
export function encodeValues<T extends SQLiteTable>(props: Props<T>, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...values };
  for (const prop of Object.values(props)) {
    if (!JSON_KINDS.has(prop.kind) || !(prop.column in out)) continue;
    const v = out[prop.column];
    out[prop.column] = v === null || v === undefined ? null : JSON.stringify(v);
  }
  return out;
}

function checkKind(kind: PropKind, path: string, value: unknown): unknown {
  switch (kind) {
    case 'name':
      return requireName(value, path);
    case 'nullableString':
      return typeof value === 'string' && value.trim() !== '' ? value : null;
    case 'map':
      return validateMap(value, path);
    case 'object':
      if (!isObject(value)) throw fieldError(path, `${path} must be an object`, value);
      assertObject(value, path);
      return value;
    case 'attributes':
      return validateRoleAttributes(value, path);
    default:
      return value;
  }
}

/** A name must be a non-empty string (400 COULD_NOT_VALIDATE `name is required`). */
export function requireName(value: unknown, field = 'name'): string {
  if (typeof value !== 'string' || value === '') throw fieldError(field, `${field} is required`, value ?? '');
  assertName(value, field);
  return value;
}

/**
 * Tags and tag-like maps: a flat object whose values are null, strings, booleans or numbers. Nested
 * objects and lists are refused with 400 (the controller's storage fails with 500 there).
 */
export function validateMap(value: unknown, field = 'tags'): Record<string, unknown> {
  if (value === null || value === undefined) return {};
  if (!isObject(value)) throw fieldError(field, `${field} must be an object`, value);
  assertMap(value, field);
  for (const [key, v] of Object.entries(value)) {
    if (v !== null && typeof v !== 'string' && typeof v !== 'boolean' && typeof v !== 'number') {
      throw fieldError(field, `${Array.isArray(v) ? 'nested lists' : 'nested maps'} not supported (${field}.${key}): values must be null, a string, a boolean or a number`, value);
    }
  }
  return value;
}

/** Role attributes may not start with `#` or `@` (those are role-string prefixes); kept as a sorted set. */
export function validateRoleAttributes(value: unknown, field = 'roleAttributes'): string[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw fieldError(field, `${field} must be a list of strings`, value);
  assertRoleAttributes(value as string[], field);
  for (const attr of value as string[]) {
    if (attr.startsWith('#')) throw fieldError(field, 'role attributes may not be prefixed with #', attr);
    if (attr.startsWith('@')) throw fieldError(field, 'role attributes may not be prefixed with @', attr);
  }
  return toSet(value as string[]);
}
