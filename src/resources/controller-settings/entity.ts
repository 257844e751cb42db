import { defineEntity } from '../../crud/entity.js';
import { commonFields } from '../../crud/list-query.js';
import { controllerSettings } from '../../db/schema/index.js';
import type { ControllerSettingCreate } from '../../generated/management-types.js';

export type ControllerSettingRow = typeof controllerSettings.$inferSelect;

/** The id of the settings every controller inherits (seeded by the migration, never deleted). */
export const GLOBAL_SETTINGS_ID = 'global';

/**
 * `/controller-settings` (reference oidc.md §9): the `global` row and per-controller overrides keyed by
 * controller id. A list left out (null) inherits: instance → global → built-in defaults.
 */
export const controllerSettingEntity = defineEntity<ControllerSettingCreate>()({
  entity: 'controllerSetting',
  collection: 'controller-settings',
  table: controllerSettings,
  fields: commonFields(controllerSettings),
  props: {
    'oidc.redirectUris': { column: 'redirectUris', kind: 'json' },
    'oidc.postLogoutUris': { column: 'postLogoutUris', kind: 'json' },
  },
  // Ids are controller ids, chosen by the caller (createControllerSetting).
  newId: () => {
    throw new Error('controller settings are created with their controller id');
  },
  protectSystem: { delete: true },
});
