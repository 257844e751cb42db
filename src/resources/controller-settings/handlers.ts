import { handlers, type ManagementOperations } from '../../http/handler.js';
import { controllerSettingEntity } from './entity.js';
import { createSetting, deleteSetting, effectiveDetail, listSettings, settingDetail, updateSetting } from './service.js';

/** Management `/controller-settings` (admin): global and per-controller OIDC redirect settings. */
export const controllerSettingHandlers = handlers<ManagementOperations>()({
  listControllerSettings: async ({ svc, list, reply }) => reply.list(await listSettings(svc.deps, list)),
  createControllerSetting: async ({ svc, body, reply }) => reply.created(await createSetting(svc.deps, body), controllerSettingEntity),
  detailControllerSetting: async ({ svc, params, reply }) => reply.ok(await settingDetail(svc.deps, params.id)),
  detailControllerSettingEffective: async ({ svc, params, reply }) => reply.ok(await effectiveDetail(svc.deps, params.id)),
  updateControllerSetting: async ({ svc, params, body, reply }) => (await updateSetting(svc.deps, params.id, body, 'update'), reply.empty()),
  patchControllerSetting: async ({ svc, params, body, reply }) => (await updateSetting(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteControllerSetting: async ({ svc, params, reply }) => (await deleteSetting(svc.deps, params.id), reply.empty()),
});
