/**
 * Declarative CRUD for management entities (conventions: docs/api-conventions.md). A resource declares
 * its table, public field map, writable properties and rules once (`defineEntity`), renders rows with its
 * mapper, and gets list / detail / create / replace / patch / delete with the controller's semantics:
 *
 * - lists: filter, sort and paging through `resolveListQuery`, one COUNT and one page SELECT;
 * - detail and writes on a missing id: 404 NOT_FOUND `<entity> with id <id> not found`;
 * - create: 201 `{id, _links.self}`; PUT writes every property (omitted = zero value); PATCH writes only
 *   present, non-null properties, and maps (tags, appData, ...) only when they have at least one key;
 * - unique columns checked before the write and also caught from the unique index;
 * - names required, tags flat, role attributes without `#`/`@` and stored as sorted sets;
 * - system records refusing update or delete where the entity says so.
 *
 * Layers: the `EntityRepo` part is the only code here that touches drizzle (it is the generic repo each
 * resource's repo.ts instantiates); the rest is service-level rules that handlers reach through a service.
 */
import { and, count, eq, getTableName, ne, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { atomic, type Db } from '../db/client.js';
import type { Deps } from '../deps.js';
import { toSet } from '../lib/json.js';
import { assertMap, assertName, assertRoleAttributes } from '../lib/limits.js';
import { ApiError, causeValue, fieldError, messageError, notFound } from './errors.js';
import { created, ok } from './envelope.js';
import type { HandlerMap, OpContext } from './handler.js';
import { listMeta, resolveListQuery, type FieldMap, type ListMeta, type ListQueryOptions, type ListQueryParams, type ResolvedListQuery } from './list-query.js';
import type { QueryLists, QueryValues } from './validate.js';

export type Statement = BatchItem<'sqlite'>;

// ---------------------------------------------------------------------------------------------------------
// Writable properties

export type WriteMode = 'create' | 'update' | 'patch';

/**
 * How a body property becomes a column value:
 * - `name`: required, non-empty string (400 `name is required`); no trimming, as the controller;
 * - `string` / `bool` / `int`: as given, zero value `''` / `false` / `0`;
 * - `nullableString`: empty or blank → null (externalId);
 * - `map`: a flat JSON object (tags, appData, hosting maps) stored as JSON text, replaced as a whole;
 * - `attributes`: role attributes, validated and stored as a sorted JSON set;
 * - `json`: any value stored as JSON text (lists such as allowed signers).
 */
export type PropKind = 'name' | 'string' | 'nullableString' | 'bool' | 'int' | 'map' | 'attributes' | 'json';

export interface Prop {
  /** The table's property (drizzle key), e.g. `updbMinPasswordLength`. */
  column: string;
  kind: PropKind;
  /** Written by create and PUT when the property is absent or null. Defaults per kind. */
  zero?: unknown;
  /** Applied to the converted value on every write (normalisation, defaults for blank values). */
  convert?: (value: any) => unknown;
}

/** Writable properties keyed by their JSON path in the request body (`primary.updb.maxAttempts`). */
export type Props = Record<string, Prop>;

const ZERO: Record<PropKind, unknown> = { name: '', string: '', nullableString: null, bool: false, int: 0, map: {}, attributes: [], json: null };

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
 * Column values for a write. create/update (PUT) write every property, absent ones as their zero value;
 * patch writes only present, non-null ones, and a map only when it has at least one key
 * (`"tags": {}` and `"tags": null` leave the tags alone).
 */
export function writeValues(props: Props, body: unknown, mode: WriteMode): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [path, prop] of Object.entries(props)) {
    const raw = valueAt(body, path);
    if (mode === 'patch') {
      if (raw === undefined) continue;
      if (prop.kind === 'map' && isObject(raw) && Object.keys(raw).length === 0) continue;
    }
    const value = raw === undefined ? (prop.zero !== undefined ? prop.zero : ZERO[prop.kind]) : raw;
    const converted = toColumn(prop.kind, path, value);
    out[prop.column] = prop.convert ? prop.convert(converted) : converted;
  }
  return out;
}

function toColumn(kind: PropKind, path: string, value: unknown): unknown {
  switch (kind) {
    case 'name':
      return requireName(value, path);
    case 'nullableString':
      return typeof value === 'string' && value.trim() !== '' ? value : null;
    case 'map':
      return JSON.stringify(validateMap(value, path));
    case 'attributes':
      return JSON.stringify(validateRoleAttributes(value, path));
    case 'json':
      return value === null ? null : JSON.stringify(value);
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

/** Role attributes may not start with `#` or `@` (those are role-string prefixes); stored as a sorted set. */
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

// ---------------------------------------------------------------------------------------------------------
// Entity declaration and the generic repo

/** The columns every entity table has (src/db/schema/common.ts). */
export type EntityTable = SQLiteTable & {
  id: SQLiteColumn;
  createdAt: SQLiteColumn;
  updatedAt: SQLiteColumn;
  tags: SQLiteColumn;
  isSystem: SQLiteColumn;
};

export interface BaseRow {
  id: string;
  createdAt: number;
  updatedAt: number;
  tags: string;
  isSystem: boolean;
}

/** Extra columns selected with each row: correlated sub-queries such as a referenced entity's name. */
export type Extras = Record<string, SQL<unknown>>;
export type ExtraValues<E extends Extras> = { [K in keyof E]: E[K] extends SQL<infer T> ? T : unknown };
export type Selected<Row, E extends Extras> = { row: Row } & ExtraValues<E>;

export interface UniqueColumn {
  /** The table property (drizzle key). */
  column: string;
  /** The API field named in the 400 cause. */
  field: string;
}

export interface EntityConfig {
  /** Singular name in messages: `identity with id x not found`. */
  entity: string;
  /** The URL collection: links are `./<collection>/<id>`. */
  collection: string;
  table: EntityTable;
  /** Public filter and sort fields (reference model-and-policies §1.6). */
  fields: FieldMap;
  /** Writable properties; what create, PUT and PATCH may write. */
  props: Props;
  /** Unique columns: checked before a write and mapped from the unique index's violation. */
  unique?: UniqueColumn[];
  newId(): string;
  /** isSystem rows refuse update / delete through the API (400 ENTITY_CAN_NOT_BE_UPDATED / _DELETED). */
  protectSystem?: { update?: boolean; delete?: boolean };
}

export interface EntityRepo<Row extends BaseRow> {
  list<E extends Extras = {}>(db: Db, q: ResolvedListQuery, options?: { where?: SQL; extras?: E }): Promise<{ rows: Selected<Row, E>[]; total: number }>;
  find<E extends Extras = {}>(db: Db, id: string, extras?: E): Promise<Selected<Row, E> | undefined>;
  /** Another row (not `exceptId`) already holds this value in the column. */
  taken(db: Db, column: string, value: unknown, exceptId?: string): Promise<boolean>;
  insert(db: Db, values: Record<string, unknown>): Statement;
  update(db: Db, id: string, values: Record<string, unknown>): Statement;
  remove(db: Db, id: string): Statement;
}

export interface EntityDef<Row extends BaseRow = BaseRow> extends EntityConfig {
  repo: EntityRepo<Row>;
}

/** The generic repo of an entity table: the only drizzle code of the CRUD helpers. */
export function entityRepo<Row extends BaseRow>(table: EntityTable): EntityRepo<Row> {
  // drizzle's builders are typed per table; this generic code works on any entity table.
  const t = table as any;
  const column = (name: string): SQLiteColumn => {
    const c = t[name] as SQLiteColumn | undefined;
    if (!c) throw new Error(`no column ${name}`);
    return c;
  };
  return {
    async list(db, q, options = {}) {
      const where = and(options.where, q.where);
      const [rows, total] = await Promise.all([
        (db as any)
          .select({ row: t, ...(options.extras ?? {}) })
          .from(t)
          .where(where)
          .orderBy(...q.orderBy)
          .limit(q.limit ?? -1)
          .offset(q.offset),
        db.select({ n: count() }).from(t).where(where),
      ]);
      return { rows, total: total[0]?.n ?? 0 };
    },
    async find(db, id, extras) {
      const rows = await (db as any)
        .select({ row: t, ...(extras ?? {}) })
        .from(t)
        .where(eq(t.id, id))
        .limit(1);
      return rows[0];
    },
    async taken(db, name, value, exceptId) {
      const rows = await db
        .select({ id: t.id })
        .from(t)
        .where(and(eq(column(name), value), exceptId === undefined ? undefined : ne(t.id, exceptId)))
        .limit(1);
      return rows.length > 0;
    },
    insert: (db, values) => db.insert(t).values(values),
    update: (db, id, values) => db.update(t).set(values).where(eq(t.id, id)),
    remove: (db, id) => db.delete(t).where(eq(t.id, id)),
  };
}

/** Declares an entity. Every entity has writable `tags` (a flat map), so it need not be declared. */
export function defineEntity<Row extends BaseRow>(config: EntityConfig): EntityDef<Row> {
  const props: Props = { tags: { column: 'tags', kind: 'map' }, ...config.props };
  return { ...config, props, repo: entityRepo<Row>(config.table) };
}

export function selfHref(def: Pick<EntityConfig, 'collection'>, id: string): string {
  return `./${def.collection}/${id}`;
}

// ---------------------------------------------------------------------------------------------------------
// Unique columns

/** The `table.column` names of a UNIQUE violation in an error (libSQL and D1 wrap it differently), or undefined. */
export function uniqueViolation(error: unknown): string[] | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const m = /UNIQUE constraint failed: ([\w.]+(?:, [\w.]+)*)/i.exec(String((e as Error).message ?? e));
    if (m) return m[1].split(', ');
  }
  return undefined;
}

function uniqueError(field: string, value: unknown): ApiError {
  return fieldError(field, `${field} must be unique`, value);
}

/** 400 when a unique column being written already holds the value on another row. */
async function checkUnique(db: Db, def: EntityDef<any>, values: Record<string, unknown>, existing?: BaseRow): Promise<void> {
  const checks = (def.unique ?? []).filter((u) => {
    const v = values[u.column];
    return v !== undefined && v !== null && (!existing || (existing as unknown as Record<string, unknown>)[u.column] !== v);
  });
  const taken = await Promise.all(checks.map((u) => def.repo.taken(db, u.column, values[u.column], existing?.id)));
  const i = taken.indexOf(true);
  if (i >= 0) throw uniqueError(checks[i].field, values[checks[i].column]);
}

/**
 * Runs a write batch; a unique-index violation (a concurrent write took the value between the check and
 * the write) becomes the same 400 the check gives.
 */
export async function writeBatch(db: Db, statements: Statement[], unique: { table: EntityTable; columns: UniqueColumn[]; values: Record<string, unknown> }[] = []): Promise<void> {
  try {
    await atomic(db, statements);
  } catch (e) {
    const failed = uniqueViolation(e);
    if (!failed) throw e;
    for (const { table, columns, values } of unique) {
      const tableName = tableNameOf(table);
      for (const u of columns) {
        const sqlName = ((table as any)[u.column] as SQLiteColumn).name;
        if (failed.includes(`${tableName}.${sqlName}`)) throw uniqueError(u.field, values[u.column]);
      }
    }
    throw e;
  }
}

function tableNameOf(table: SQLiteTable): string {
  return getTableName(table);
}

/**
 * A column qualified with its table name. Drizzle renders columns of a single-table query unqualified,
 * which inside a correlated sub-query would bind to the sub-query's own table.
 */
export function qualified(column: SQLiteColumn): SQL {
  return sql`${sql.identifier(getTableName(column.table))}.${sql.identifier(column.name)}`;
}

// ---------------------------------------------------------------------------------------------------------
// Service-level operations

export interface ListResult {
  data: unknown[];
  meta: ListMeta;
}

export interface ListOptions<Row extends BaseRow, E extends Extras> {
  /** The endpoint's own restriction (roleFilter, parent id of a sub-list), AND-ed with the user filter. */
  where?: SQL;
  extras?: E;
  render(selected: Selected<Row, E>): unknown;
  queryOptions?: ListQueryOptions;
}

/** A list: filter/sort/paging resolved once, one COUNT and one page SELECT, the standard `meta`. */
export async function listEntities<Row extends BaseRow, E extends Extras = {}>(deps: Deps, def: EntityDef<Row>, query: ListQueryParams, options: ListOptions<Row, E>): Promise<ListResult> {
  const q = resolveListQuery(query, def.fields, options.queryOptions);
  const { rows, total } = await def.repo.list(deps.db, q, { where: options.where, extras: options.extras });
  return { data: rows.map((r) => options.render(r)), meta: listMeta(total, q.limit, q.offset, def.fields) };
}

/**
 * A related-entity sub-list (`/identities/{id}/authenticators`): the listed type's filter, sort, paging
 * and fields, restricted by `where`. A missing parent gives an empty list, as the controller's do. These
 * operations do not declare `limit`/`offset`, so a non-integer is the controller's own 400 INVALID_PAGINATION.
 */
export async function listRelated<Row extends BaseRow, E extends Extras = {}>(deps: Deps, def: EntityDef<Row>, query: ListQueryParams, options: ListOptions<Row, E> & { where: SQL }): Promise<ListResult> {
  for (const field of ['limit', 'offset'] as const) {
    const raw = query[field];
    if (raw !== undefined && raw !== '' && !/^[+-]?\d{1,15}$/.test(raw)) {
      throw new ApiError('INVALID_PAGINATION', { field, reason: `could not parse ${field}, value is not an integer`, value: raw });
    }
  }
  return listEntities(deps, def, query, options);
}

/** The row, or 404 NOT_FOUND `<entity> with id <id> not found`. */
export async function findEntity<Row extends BaseRow, E extends Extras = {}>(deps: Deps, def: EntityDef<Row>, id: string, extras?: E): Promise<Selected<Row, E>> {
  const found = await def.repo.find(deps.db, id, extras);
  if (!found) throw notFound(def.entity, id);
  return found;
}

export interface CreateHooks {
  /** Rules on the computed values (may add or change values, or throw). */
  check?(deps: Deps, values: Record<string, unknown>, body: any): Promise<void> | void;
  /** More statements for the same batch (rows that belong to the new entity). */
  statements?(deps: Deps, id: string, values: Record<string, unknown>, now: number): Statement[];
}

/** Creates a row from a validated body; returns its id. */
export async function createEntity(deps: Deps, def: EntityDef<any>, body: unknown, hooks: CreateHooks = {}): Promise<string> {
  const values = writeValues(def.props, body, 'create');
  await hooks.check?.(deps, values, body);
  await checkUnique(deps.db, def, values);
  const id = def.newId();
  const now = deps.now();
  const row = { ...values, id, createdAt: now, updatedAt: now };
  await writeBatch(deps.db, [def.repo.insert(deps.db, row), ...(hooks.statements?.(deps, id, row, now) ?? [])], [{ table: def.table, columns: def.unique ?? [], values }]);
  return id;
}

export interface UpdateHooks<Row> {
  /** Rules on the computed values, with the row as it is and the request body (may add values, or throw). */
  check?(deps: Deps, values: Record<string, unknown>, existing: Row, body: any, mode: 'update' | 'patch'): Promise<void> | void;
  statements?(deps: Deps, existing: Row, values: Record<string, unknown>, now: number): Statement[];
}

/** PUT (`update`: every property, absent ones zeroed) or PATCH (`patch`: present ones only). */
export async function updateEntity<Row extends BaseRow>(deps: Deps, def: EntityDef<Row>, id: string, body: unknown, mode: 'update' | 'patch', hooks: UpdateHooks<Row> = {}): Promise<void> {
  const { row: existing } = await findEntity(deps, def, id);
  if (existing.isSystem && def.protectSystem?.update) {
    throw messageError('ENTITY_CAN_NOT_BE_UPDATED', `cannot update system ${def.entity} (id=${id})`);
  }
  const values = writeValues(def.props, body, mode);
  await hooks.check?.(deps, values, existing, body, mode);
  await checkUnique(deps.db, def, values, existing);
  const now = deps.now();
  // updatedAt changes on every successful update, even when no field changed.
  values.updatedAt = now;
  await writeBatch(deps.db, [def.repo.update(deps.db, id, values), ...(hooks.statements?.(deps, existing, values, now) ?? [])], [{ table: def.table, columns: def.unique ?? [], values }]);
}

export interface DeleteHooks<Row> {
  /** Refusals (default admin, referenced entity), thrown before anything is written. */
  check?(deps: Deps, existing: Row): Promise<void> | void;
  /** Rows that go with the entity, deleted in the same batch. */
  cascade?(deps: Deps, existing: Row): Statement[];
}

export async function deleteEntity<Row extends BaseRow>(deps: Deps, def: EntityDef<Row>, id: string, hooks: DeleteHooks<Row> = {}): Promise<void> {
  const { row: existing } = await findEntity(deps, def, id);
  await hooks.check?.(deps, existing);
  if (existing.isSystem && def.protectSystem?.delete) {
    throw messageError('ENTITY_CAN_NOT_BE_DELETED', `cannot delete system ${def.entity} (id=${id})`);
  }
  await atomic(deps.db, [...(hooks.cascade?.(deps, existing) ?? []), def.repo.remove(deps.db, id)]);
}

/**
 * 409 CAN_NOT_DELETE_REFERENCED_ENTITY with the controller's field cause, e.g.
 * `entity type authPolicies referenced by identities: [a b]`, field `authPolicyId`.
 */
export function referencedError(localType: string, remoteType: string, ids: string[], field: string): ApiError {
  return new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', { field, reason: `entity type ${localType} referenced by ${remoteType}: ${causeValue(ids)}`, value: causeValue(ids) });
}

// ---------------------------------------------------------------------------------------------------------
// A whole resource's service and handlers from its declaration

export interface ResourceRules<Row extends BaseRow, E extends Extras> {
  /** Extra columns selected with each row, handed to `render`. */
  extras?(deps: Deps): E;
  render(selected: Selected<Row, E>, deps: Deps): unknown;
  /** The list's own restriction from its query parameters (roleFilter). */
  listWhere?(query: QueryValues, queries: QueryLists): SQL | undefined;
  create?: CreateHooks;
  update?: UpdateHooks<Row>;
  remove?: DeleteHooks<Row>;
}

export interface ResourceService {
  list(deps: Deps, query: QueryValues, queries?: QueryLists): Promise<ListResult>;
  detail(deps: Deps, id: string): Promise<unknown>;
  create(deps: Deps, body: unknown): Promise<string>;
  update(deps: Deps, id: string, body: unknown, mode: 'update' | 'patch'): Promise<void>;
  remove(deps: Deps, id: string): Promise<void>;
}

/** The service of a resource whose operations are plain CRUD plus the declared rules. */
export function resourceService<Row extends BaseRow, E extends Extras = {}>(def: EntityDef<Row>, rules: ResourceRules<Row, E>): ResourceService {
  return {
    list: (deps, query, queries = {}) =>
      listEntities<Row, E>(deps, def, query, { where: rules.listWhere?.(query, queries), extras: rules.extras?.(deps), render: (r) => rules.render(r, deps) }),
    detail: async (deps, id) => rules.render(await findEntity<Row, E>(deps, def, id, rules.extras?.(deps)), deps),
    create: (deps, body) => createEntity(deps, def, body, rules.create),
    update: (deps, id, body, mode) => updateEntity(deps, def, id, body, mode, rules.update),
    remove: (deps, id) => deleteEntity(deps, def, id, rules.remove),
  };
}

export interface CrudOperationIds {
  list?: string;
  detail?: string;
  create?: string;
  update?: string;
  patch?: string;
  delete?: string;
}

/** 200 `{data: [...], meta: {pagination, filterableFields}}`. */
export function listResponse(result: ListResult): Response {
  return ok(result.data, result.meta as unknown as Record<string, unknown>);
}

/** Handlers for the CRUD operations of a resource, keyed by their operationIds. */
export function crudHandlers(def: Pick<EntityConfig, 'collection'>, service: ResourceService, ids: CrudOperationIds): HandlerMap {
  const map: HandlerMap = {};
  if (ids.list) map[ids.list] = async ({ deps, query, queries }: OpContext) => listResponse(await service.list(deps, query, queries));
  if (ids.detail) map[ids.detail] = async ({ deps, params }: OpContext) => ok(await service.detail(deps, params.id));
  if (ids.create) {
    map[ids.create] = async ({ deps, body }: OpContext) => {
      const id = await service.create(deps, body);
      return created(id, selfHref(def, id));
    };
  }
  if (ids.update) map[ids.update] = async ({ deps, params, body }: OpContext) => (await service.update(deps, params.id, body, 'update'), emptyOk());
  if (ids.patch) map[ids.patch] = async ({ deps, params, body }: OpContext) => (await service.update(deps, params.id, body, 'patch'), emptyOk());
  if (ids.delete) map[ids.delete] = async ({ deps, params }: OpContext) => (await service.remove(deps, params.id), emptyOk());
  return map;
}

function emptyOk(): Response {
  return ok({}, {});
}
