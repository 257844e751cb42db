import { baseEntity } from '../../crud/render.js';
import type { ControllerSettingDetail, ControllerSettingEffective, ControllerSettings } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import type { ControllerSettingRow } from './entity.js';

/** The stored settings: a list left out is null (inherited). */
export function settingsOf(row: Pick<ControllerSettingRow, 'redirectUris' | 'postLogoutUris'>): ControllerSettings {
  return { oidc: { redirectUris: readJson<string[] | null>(row.redirectUris, null), postLogoutUris: readJson<string[] | null>(row.postLogoutUris, null) } };
}

export function renderSetting(row: ControllerSettingRow): ControllerSettingDetail {
  return { ...baseEntity(row, `./controller-settings/${row.id}`, { effective: 'effective' }), ...settingsOf(row) };
}

/** `/controller-settings/{id}/effective`: what is in force for the controller, and its own overrides. */
export function renderEffective(base: ControllerSettingRow, effective: ControllerSettings, instance: ControllerSettings | null): ControllerSettingEffective {
  return { ...baseEntity(base, `./controller-settings/${base.id}/effective`), effective, instance };
}
