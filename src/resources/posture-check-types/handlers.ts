import { handlers, type ManagementOperations } from '../../http/handler.js';
import { detailPostureCheckType, listPostureCheckTypes } from './service.js';

/** Management `/posture-check-types` (admin, fixed content). */
export const postureCheckTypeHandlers = handlers<ManagementOperations>()({
  listPostureCheckTypes: async ({ svc, list, reply }) => reply.list(await listPostureCheckTypes(svc.deps, list)),
  detailPostureCheckType: async ({ params, reply }) => reply.ok(detailPostureCheckType(params.id)),
});
