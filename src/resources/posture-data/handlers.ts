import { handlers, type ManagementOperations } from '../../http/handler.js';
import { identityFailedServiceRequests, identityPostureData } from './service.js';

/** Management `/identities/{id}/posture-data` and `/identities/{id}/failed-service-requests` (admin). */
export const postureDataHandlers = handlers<ManagementOperations>()({
  getIdentityPostureData: async ({ svc, params, reply }) => reply.ok(await identityPostureData(svc.deps, params.id)),
  getIdentityFailedServiceRequests: async ({ svc, params, reply }) => reply.ok(await identityFailedServiceRequests(svc.deps, params.id)),
});
