import { links } from '../../crud/render.js';
import { iso } from '../../lib/time.js';
import type { ControllerSettingDetail, ControllerSettingEffective, ControllerSettings } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import type { ControllerSettingRow } from './entity.js';

/** The stored settings: a list left out is null (inherited). */
export function settingsOf(row: Pick<ControllerSettingRow, 'redirectUris' | 'postLogoutUris'>): ControllerSettings {
  return { oidc: { redirectUris: readJson<string[] | null>(row.redirectUris, null), postLogoutUris: readJson<string[] | null>(row.postLogoutUris, null) } };
}

const SETTING_LINKS = { effective: 'effective' };

export function renderSetting(row: ControllerSettingRow): ControllerSettingDetail {
  return {
    id: row.id,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    tags: readJson<Record<string, unknown>>(row.tags, {}),
    _links: links(`./controller-settings/${row.id}`, SETTING_LINKS),
    ...settingsOf(row),
  };
}

/** `/controller-settings/{id}/effective`: what is in force for the controller, and its own overrides. */
export function renderEffective(base: ControllerSettingRow, effective: ControllerSettings, instance: ControllerSettings | null): ControllerSettingEffective {
  return {
    id: base.id,
    createdAt: iso(base.createdAt),
    updatedAt: iso(base.updatedAt),
    tags: readJson<Record<string, unknown>>(base.tags, {}),
    _links: links(`./controller-settings/${base.id}/effective`),
    effective,
    instance,
  };
}
