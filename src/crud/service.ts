/**
 * The CRUD operations every management entity shares, with the controller's semantics
 * (docs/api-conventions.md): lists with filter, sort and paging; 404 `<entity> with id <id> not found`;
 * PUT writes every property and PATCH the present ones (§2.7); unique columns checked before the write
 * and caught from the unique index; system records refusing update or delete where the entity says so.
 * A resource's service is `resourceService(entity, rules)` plus whatever operations it adds.
 */
import type { SQL } from '../db/client.js';
import type { PendingRead, TotalVersions } from '../db/list-page.js';
import type { Deps } from '../deps.js';
import { ApiError, causeValue, messageError, notFound } from '../errors.js';
import type { EntityDef, EntityTable, RowOf } from './entity.js';
import { listMeta, resolveListQuery, type ListMeta, type ListQueryOptions, type ListQueryParams } from './list-query.js';
import { encodeValues, writeValues, type Props, type WriteValues } from './props.js';
import { entityRepo, uniqueError, writeBatch, type EntityRepo, type Extras, type Selected, type Statement, type TotalOverride } from './repo.js';

export interface ListResult<Item = unknown> {
  data: Item[];
  meta: ListMeta;
}

/** An entity with its generic repo. */
interface Entity<T extends EntityTable, P extends Props<T>> {
  def: EntityDef<T, P>;
  repo: EntityRepo<RowOf<T>>;
}

const repos = new WeakMap<EntityTable, EntityRepo<any>>();
function entity<T extends EntityTable, P extends Props<T>>(def: EntityDef<T, P>): Entity<T, P> {
  let repo = repos.get(def.table);
  if (!repo) repos.set(def.table, (repo = entityRepo(def.table)));
  return { def, repo };
}

export interface ListOptions<Row, E extends Extras, Item> {
  /** The endpoint's own restriction (roleFilter, parent id of a sub-list), AND-ed with the user filter. */
  where?: SQL;
  extras?: E;
  render(selected: Selected<Row, E>): Item;
  queryOptions?: ListQueryOptions;
  /** The unfiltered total, when the restriction keeps it cheaper than a COUNT (src/crud/repo.ts). */
  total?: TotalOverride;
}

/** A list: filter/sort/paging resolved once, one page SELECT and its COUNT, the standard `meta`. */
export async function listEntities<T extends EntityTable, E extends Extras, Item>(deps: Deps, def: EntityDef<T, any>, query: ListQueryParams, options: ListOptions<RowOf<T>, E, Item>): Promise<ListResult<Item>> {
  const q = resolveListQuery(query, def.fields, options.queryOptions);
  const { rows, total } = await entity(def).repo.list(deps.db, q, { where: options.where, extras: options.extras, total: options.total });
  return { data: rows.map((r) => options.render(r)), meta: listMeta(total, q.limit, q.offset, def.fields) };
}

/**
 * Declares a list as kept (docs/adr/0014-identity-list.md): its page statement is built once per store
 * handle and distinct request, its exact total kept while the table's `list_versions` hold. Only for a
 * list whose restriction and filter fields read nothing but the entity's own table, whose writes move
 * `versions` (triggers).
 */
export interface KeptList<E extends Extras> {
  versions: TotalVersions;
  /** The extras, built once: per-request values are placeholders that `placeholders` fills. */
  extras?(): E;
  placeholders?(deps: Deps): Record<string, unknown>;
}

export interface KeptListOptions<Row, E extends Extras, Item> {
  kept: KeptList<E>;
  /** Everything besides the list parameters that decides the restriction (roleFilter), as text. */
  restrictionKey: string;
  /** The restriction, built from what `restrictionKey` holds; only for a request not kept yet. */
  where?(): SQL | undefined;
  render(selected: Selected<Row, E>): Item;
  queryOptions?: ListQueryOptions;
}

/** What decides a kept list's statement: the request's list parameters and the restriction. */
function keptListRequest<T extends EntityTable, E extends Extras>(deps: Deps, def: EntityDef<T, any>, query: ListQueryParams, options: Omit<KeptListOptions<RowOf<T>, E, unknown>, 'render'>) {
  return {
    key: JSON.stringify([def.collection, query.filter ?? null, query.limit ?? null, query.offset ?? null, query.sort ?? null, options.queryOptions?.filterPagingOnly ?? false, options.restrictionKey]),
    build: () => {
      // The restriction first: its errors (a bad roleSemantic) come before the filter's, as in listEntities' callers.
      const where = options.where?.();
      return { q: resolveListQuery(query, def.fields, options.queryOptions), where, extras: options.kept.extras?.() };
    },
    placeholders: options.kept.placeholders?.(deps) ?? {},
  };
}

/** A kept list: the same answer as `listEntities`, in one statement, without building it or counting again. */
export async function listKept<T extends EntityTable, E extends Extras, Item>(deps: Deps, def: EntityDef<T, any>, query: ListQueryParams, options: KeptListOptions<RowOf<T>, E, Item>): Promise<ListResult<Item>> {
  const { key, build, placeholders } = keptListRequest(deps, def, query, options);
  const { rows, total, limit, offset } = await entity(def).repo.keptList<E>(deps.db, key, build, options.kept.versions, placeholders, query.readAhead);
  return { data: rows.map((r) => options.render(r)), meta: listMeta(total, limit, offset, def.fields) };
}

/**
 * The page statement of the kept list `listKept` would read for this request, guarded, to be read with the
 * session check (src/db/list-page.ts `keptPageReadAhead`). Throws what `listKept` would on bad parameters.
 */
export function keptListReadAhead<T extends EntityTable, E extends Extras>(deps: Deps, def: EntityDef<T, any>, query: ListQueryParams, options: Omit<KeptListOptions<RowOf<T>, E, unknown>, 'render'>, guard: SQL): PendingRead | undefined {
  const { key, build, placeholders } = keptListRequest(deps, def, query, options);
  return entity(def).repo.keptListReadAhead<E>(deps.db, key, build, options.kept.versions, placeholders, guard);
}

/**
 * A related-entity sub-list (`/identities/{id}/authenticators`): the listed type's filter, sort, paging
 * and fields, restricted by `where`. A missing parent gives an empty list, as the controller's do. These
 * operations do not declare `limit`/`offset`, so a non-integer is the controller's own 400 INVALID_PAGINATION.
 */
export async function listRelated<T extends EntityTable, E extends Extras, Item>(deps: Deps, def: EntityDef<T, any>, query: ListQueryParams, options: ListOptions<RowOf<T>, E, Item> & { where: SQL }): Promise<ListResult<Item>> {
  for (const field of ['limit', 'offset'] as const) {
    const raw = query[field];
    if (typeof raw === 'string' && raw !== '' && !/^[+-]?\d{1,15}$/.test(raw)) {
      throw new ApiError('INVALID_PAGINATION', { field, reason: `could not parse ${field}, value is not an integer`, value: raw });
    }
  }
  return listEntities(deps, def, query, options);
}

/** The row, or 404 NOT_FOUND `<entity> with id <id> not found`. */
export async function findEntity<T extends EntityTable, E extends Extras = {}>(deps: Deps, def: EntityDef<T, any>, id: string, extras?: E): Promise<Selected<RowOf<T>, E>> {
  const found = await entity(def).repo.find(deps.db, id, extras);
  if (!found) throw notFound(def.entity, id);
  return found;
}

export interface CreateHooks<T extends EntityTable, P extends Props<T>, Body> {
  /** Rules on the decoded values (may add or change values, or throw). */
  check?(deps: Deps, values: WriteValues<T, P>, body: Body): Promise<void> | void;
  /** More statements for the same batch (rows that belong to the new entity). */
  statements?(deps: Deps, id: string, values: WriteValues<T, P>, now: number): Statement[];
  /** The insert itself, when it must be conditional (a repo function); the generic insert otherwise. */
  insert?(deps: Deps, row: Record<string, unknown>): Statement;
}

/** Creates a row from a validated body; returns its id. */
export async function createEntity<T extends EntityTable, P extends Props<T>, Body>(deps: Deps, def: EntityDef<T, P>, body: Body, hooks: CreateHooks<T, P, Body> = {}): Promise<string> {
  const { repo } = entity(def);
  const values = writeValues<T, P>(def.props, body, 'create');
  await hooks.check?.(deps, values, body);
  await checkUnique(deps, def, values);
  const id = def.newId();
  const now = deps.now();
  const row = encodeValues(def.props, { ...values, id, createdAt: now, updatedAt: now });
  const insert = hooks.insert ? hooks.insert(deps, row) : repo.insert(deps.db, row);
  await writeBatch(deps.db, [insert, ...(hooks.statements?.(deps, id, values, now) ?? [])], [{ table: def.table, columns: def.unique ?? [], values }]);
  return id;
}

export interface UpdateHooks<T extends EntityTable, P extends Props<T>, Body> {
  /** Rules on the decoded values, with the row as it is and the request body (may add values, or throw). */
  check?(deps: Deps, values: WriteValues<T, P>, existing: RowOf<T>, body: Body, mode: 'update' | 'patch'): Promise<void> | void;
  statements?(deps: Deps, existing: RowOf<T>, values: WriteValues<T, P>, now: number): Statement[];
}

/** PUT (`update`: every property, absent ones zeroed) or PATCH (`patch`: present ones only). */
export async function updateEntity<T extends EntityTable, P extends Props<T>, Body>(
  deps: Deps,
  def: EntityDef<T, P>,
  id: string,
  body: Body,
  mode: 'update' | 'patch',
  hooks: UpdateHooks<T, P, Body> = {},
): Promise<void> {
  const { repo } = entity(def);
  const { row: existing } = await findEntity(deps, def, id);
  if (existing.isSystem && def.protectSystem?.update) {
    throw messageError('ENTITY_CAN_NOT_BE_UPDATED', `cannot update system ${def.entity} (id=${id})`);
  }
  const values = writeValues<T, P>(def.props, body, mode);
  await hooks.check?.(deps, values, existing, body, mode);
  await checkUnique(deps, def, values, existing);
  const now = deps.now();
  // updatedAt changes on every successful update, even when no field changed.
  const row = encodeValues(def.props, { ...values, updatedAt: now });
  await writeBatch(deps.db, [repo.update(deps.db, id, row), ...(hooks.statements?.(deps, existing, values, now) ?? [])], [{ table: def.table, columns: def.unique ?? [], values }]);
}

export interface DeleteHooks<Row> {
  /** Refusals (default admin, referenced entity), thrown before anything is written. */
  check?(deps: Deps, existing: Row): Promise<void> | void;
  /** Rows that go with the entity, deleted in the same batch. */
  cascade?(deps: Deps, existing: Row): Statement[];
}

export async function deleteEntity<T extends EntityTable>(deps: Deps, def: EntityDef<T, any>, id: string, hooks: DeleteHooks<RowOf<T>> = {}): Promise<void> {
  const { repo } = entity(def);
  const { row: existing } = await findEntity(deps, def, id);
  await hooks.check?.(deps, existing);
  if (existing.isSystem && def.protectSystem?.delete) {
    throw messageError('ENTITY_CAN_NOT_BE_DELETED', `cannot delete system ${def.entity} (id=${id})`);
  }
  await writeBatch(deps.db, [...(hooks.cascade?.(deps, existing) ?? []), repo.remove(deps.db, id)]);
}

/** 400 when a unique column being written already holds the value on another row. */
async function checkUnique<T extends EntityTable>(deps: Deps, def: EntityDef<T, any>, values: Record<string, unknown>, existing?: RowOf<T>): Promise<void> {
  const { repo } = entity(def);
  const checks = (def.unique ?? []).filter((u) => {
    const v = values[u.column];
    return v !== undefined && v !== null && (!existing || (existing as Record<string, unknown>)[u.column] !== v);
  });
  const taken = await Promise.all(checks.map((u) => repo.taken(deps.db, u.column, values[u.column], existing?.id)));
  const i = taken.indexOf(true);
  if (i >= 0) throw uniqueError(checks[i].field, values[checks[i].column]);
}

/**
 * 409 CAN_NOT_DELETE_REFERENCED_ENTITY with the controller's field cause, e.g.
 * `entity type authPolicies referenced by identities: [a b]`, field `authPolicyId`.
 */
export function referencedError(localType: string, remoteType: string, ids: string[], field: string): ApiError {
  return new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', { field, reason: `entity type ${localType} referenced by ${remoteType}: ${causeValue(ids)}`, value: causeValue(ids) });
}

// ---------------------------------------------------------------------------------------------------------
// A whole resource's service from its declaration

export interface ResourceRules<T extends EntityTable, P extends Props<T>, E extends Extras, Item, CreateBody, UpdateBody> {
  /** Extra columns selected with each row, handed to `render`. */
  extras?(deps: Deps): E;
  render(selected: Selected<RowOf<T>, E>, deps: Deps): Item;
  /** The list's own restriction from its query parameters (roleFilter). */
  listWhere?(query: { roleFilter?: string[]; roleSemantic?: string }): SQL | undefined;
  /** The list is kept (`listKept`): its restriction and filter fields read only the entity's table. */
  keptList?: KeptList<E>;
  create?: CreateHooks<T, P, CreateBody>;
  update?: UpdateHooks<T, P, UpdateBody>;
  remove?: DeleteHooks<RowOf<T>>;
}

export interface ResourceService<Item, CreateBody, UpdateBody> {
  list(deps: Deps, list: ListQueryParams, query?: { roleFilter?: string[]; roleSemantic?: string }): Promise<ListResult<Item>>;
  /** A kept list's page statement, guarded, to read with the session check (`keptListReadAhead`); absent for other lists. */
  listReadAhead?(deps: Deps, list: ListQueryParams, query: { roleFilter?: string[]; roleSemantic?: string }, guard: SQL): PendingRead | undefined;
  detail(deps: Deps, id: string): Promise<Item>;
  create(deps: Deps, body: CreateBody): Promise<string>;
  update(deps: Deps, id: string, body: UpdateBody, mode: 'update' | 'patch'): Promise<void>;
  remove(deps: Deps, id: string): Promise<void>;
}

/**
 * `list` and `detail` of a service whose rendered items need an asynchronous second pass (e.g. sealed
 * enrollment JWTs opened after rendering, which is synchronous).
 */
export function finishedAfterRender<Item, CreateBody, UpdateBody>(
  service: ResourceService<Item, CreateBody, UpdateBody>,
  finish: (deps: Deps, items: Item[]) => Promise<void>,
): Pick<ResourceService<Item, CreateBody, UpdateBody>, 'list' | 'detail'> {
  return {
    async list(deps, list, query) {
      const result = await service.list(deps, list, query);
      await finish(deps, result.data);
      return result;
    },
    async detail(deps, id) {
      const item = await service.detail(deps, id);
      await finish(deps, [item]);
      return item;
    },
  };
}

/** The service of a resource whose operations are plain CRUD plus the declared rules. */
export function resourceService<T extends EntityTable, P extends Props<T>, Item, E extends Extras = {}, CreateBody = unknown, UpdateBody = unknown>(
  def: EntityDef<T, P>,
  rules: ResourceRules<T, P, E, Item, CreateBody, UpdateBody>,
): ResourceService<Item, CreateBody, UpdateBody> {
  const kept = rules.keptList;
  const keptOptions = (kept: KeptList<E>, query: { roleFilter?: string[]; roleSemantic?: string }) => ({
    kept,
    restrictionKey: JSON.stringify([query.roleFilter ?? null, query.roleSemantic ?? null]),
    where: () => rules.listWhere?.(query),
  });
  return {
    list: (deps, list, query = {}) =>
      kept
        ? listKept(deps, def, list, { ...keptOptions(kept, query), render: (r) => rules.render(r, deps) })
        : listEntities(deps, def, list, { where: rules.listWhere?.(query), extras: rules.extras?.(deps), render: (r) => rules.render(r, deps) }),
    ...(kept ? { listReadAhead: (deps: Deps, list: ListQueryParams, query: { roleFilter?: string[]; roleSemantic?: string }, guard: SQL) => keptListReadAhead(deps, def, list, keptOptions(kept, query), guard) } : {}),
    detail: async (deps, id) => rules.render(await findEntity(deps, def, id, rules.extras?.(deps)), deps),
    create: (deps, body) => createEntity(deps, def, body, rules.create),
    update: (deps, id, body, mode) => updateEntity(deps, def, id, body, mode, rules.update),
    remove: (deps, id) => deleteEntity(deps, def, id, rules.remove),
  };
}
