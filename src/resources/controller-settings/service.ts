import { deleteEntity, findEntity, listEntities, updateEntity } from '../../crud/service.js';
import { writeValues } from '../../crud/props.js';
import type { Deps } from '../../deps.js';
import { fieldError, notFound } from '../../errors.js';
import type { ControllerSettingCreate, ControllerSettingPatch, ControllerSettingUpdate } from '../../generated/management-types.js';
import type { ListQueryParams } from '../../crud/list-query.js';
import { DEFAULT_POST_LOGOUT_URIS, DEFAULT_REDIRECT_URIS } from '../../oidc/clients.js';
import { controllerSettingEntity as entity, GLOBAL_SETTINGS_ID, type ControllerSettingRow } from './entity.js';
import { renderEffective, renderSetting, settingsOf } from './mapper.js';
import { findSetting, findSettings, insertSetting } from './repo.js';

const MAX_URIS = 100;
const MAX_URI_LENGTH = 2048;
const MAX_ID_LENGTH = 100;

/** A URI list as stored: absent/null inherits; otherwise absolute URIs (a scheme, `*` globs allowed). */
function checkUris(field: string, value: unknown): void {
  if (value === null || value === undefined) return;
  if (!Array.isArray(value)) throw fieldError(field, `${field} must be an array of URIs`, value);
  if (value.length > MAX_URIS) throw fieldError(field, `${field} may hold at most ${MAX_URIS} URIs`, value.length);
  for (const [i, uri] of value.entries()) {
    if (typeof uri !== 'string' || uri.length === 0 || uri.length > MAX_URI_LENGTH || !/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s]+$/.test(uri) || uri.includes('#')) {
      throw fieldError(`${field}[${i}]`, 'must be an absolute URI with a scheme and no fragment', uri);
    }
  }
}

function checkValues(values: { redirectUris?: unknown; postLogoutUris?: unknown }): void {
  checkUris('oidc.redirectUris', values.redirectUris);
  checkUris('oidc.postLogoutUris', values.postLogoutUris);
}

/** The OIDC URI lists in force for a controller (instance, else global, else built-in), by field. */
export interface EffectiveOidcSettings {
  redirectUris: string[];
  postLogoutUris: string[];
}

function effectiveOf(global: ControllerSettingRow | undefined, instance: ControllerSettingRow | undefined): EffectiveOidcSettings {
  const g = global ? settingsOf(global).oidc : undefined;
  const i = instance ? settingsOf(instance).oidc : undefined;
  return {
    redirectUris: i?.redirectUris ?? g?.redirectUris ?? DEFAULT_REDIRECT_URIS,
    postLogoutUris: i?.postLogoutUris ?? g?.postLogoutUris ?? DEFAULT_POST_LOGOUT_URIS,
  };
}

/**
 * This controller's id, as `/controllers` lists it: `ZITI_CONTROLLER_ID`, else the first 16 hex digits of the
 * server certificate's SHA-1 (all instances of a deployment share the certificate, so they are one controller).
 */
export function controllerId(deps: Deps): string {
  return deps.config.oidc.controllerId ?? deps.pki.serverFingerprint.slice(0, 16);
}

/** Another instance's change is seen within this long; this instance's own at once. */
const CACHE_MS = 10_000;
const cache = new WeakMap<Deps, { at: number; value: Promise<EffectiveOidcSettings> }>();

/** What the OIDC provider validates redirect and post-logout URIs against, cached per instance. */
export function effectiveOidcSettings(deps: Deps): Promise<EffectiveOidcSettings> {
  const hit = cache.get(deps);
  if (hit && deps.now() - hit.at < CACHE_MS) return hit.value;
  const id = controllerId(deps);
  const value = findSettings(deps.db, [GLOBAL_SETTINGS_ID, id]).then((rows) => effectiveOf(rows.find((r) => r.id === GLOBAL_SETTINGS_ID), rows.find((r) => r.id === id && id !== GLOBAL_SETTINGS_ID)));
  value.catch(() => cache.delete(deps));
  cache.set(deps, { at: deps.now(), value });
  return value;
}

function changed(deps: Deps): void {
  cache.delete(deps);
}

export async function listSettings(deps: Deps, query: ListQueryParams) {
  return listEntities(deps, entity, query, { render: (r) => renderSetting(r.row) });
}

export async function settingDetail(deps: Deps, id: string) {
  return renderSetting((await findEntity(deps, entity, id)).row);
}

/** `POST /controller-settings`: a controller's overrides, keyed by its id (unique; `global` exists). */
export async function createSetting(deps: Deps, body: ControllerSettingCreate): Promise<string> {
  const id = body.controllerId;
  if (typeof id !== 'string' || id.trim() === '' || id.length > MAX_ID_LENGTH) throw fieldError('controllerId', `controllerId must be 1 to ${MAX_ID_LENGTH} characters`, id);
  const values = writeValues(entity.props, body, 'create');
  checkValues(values);
  const now = deps.now();
  const row: ControllerSettingRow = {
    id,
    createdAt: now,
    updatedAt: now,
    tags: JSON.stringify(values.tags ?? {}),
    isSystem: false,
    redirectUris: values.redirectUris == null ? null : JSON.stringify(values.redirectUris),
    postLogoutUris: values.postLogoutUris == null ? null : JSON.stringify(values.postLogoutUris),
  };
  if (!(await insertSetting(deps.db, row))) throw fieldError('controllerId', 'settings for this controller exist already', id);
  changed(deps);
  return id;
}

/** PUT (every list; one left out inherits again) or PATCH (the lists given) of `/controller-settings/{id}/effective`. */
export async function updateSetting(deps: Deps, id: string, body: ControllerSettingUpdate | ControllerSettingPatch, mode: 'update' | 'patch'): Promise<void> {
  await updateEntity(deps, entity, id, body, mode, { check: (_deps, values) => checkValues(values) });
  changed(deps);
}

/** DELETE `/controller-settings/{id}/effective`: a controller's overrides; `global` is never deleted. */
export async function deleteSetting(deps: Deps, id: string): Promise<void> {
  await deleteEntity(deps, entity, id);
  changed(deps);
}

/**
 * `GET /controller-settings/{id}/effective`: for `global`, the global settings over the built-in defaults;
 * for a controller id, its overrides (`instance`, null when it has none) over those. An id that is neither
 * `global`, a stored controller nor this controller is 404.
 */
export async function effectiveDetail(deps: Deps, id: string) {
  const global = await findSetting(deps.db, GLOBAL_SETTINGS_ID);
  if (!global) throw notFound('controllerSetting', GLOBAL_SETTINGS_ID);
  if (id === GLOBAL_SETTINGS_ID) return renderEffective(global, { oidc: effectiveOf(global, undefined) }, null);
  const instance = await findSetting(deps.db, id);
  if (!instance && id !== controllerId(deps)) throw notFound('controllerSetting', id);
  return renderEffective(instance ?? { ...global, id }, { oidc: effectiveOf(global, instance) }, instance ? settingsOf(instance) : null);
}
