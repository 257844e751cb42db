import { handlers, type ManagementOperations } from '../../http/handler.js';
import { caEntity } from './entity.js';
import { caJwt, caService as service, verifyCa } from './service.js';

/** Management `/cas` (reference auth-and-pki §7). */
export const caHandlers = handlers<ManagementOperations>()({
  listCas: async ({ svc, list, reply }) => reply.list(await service.list(svc.deps, list)),
  detailCa: async ({ svc, params, reply }) => reply.ok(await service.detail(svc.deps, params.id)),
  createCa: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), caEntity),
  updateCa: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchCa: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteCa: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
  verifyCa: async ({ svc, params, rawBody, reply }) => (await verifyCa(svc.deps, params.id, rawBody), reply.empty()),
  getCaJwt: async ({ svc, params, reply }) => reply.raw(new Response(await caJwt(svc.deps, params.id), { status: 200, headers: { 'content-type': 'application/jwt' } })),
});
