import { handlers, type ClientOperations, type ManagementOperations } from '../../http/handler.js';
import { externalJwtSignerEntity } from './entity.js';
import { externalJwtSignerService as service, listClientSigners } from './service.js';

/** Management `/external-jwt-signers` (admin): the full entity. */
export const externalJwtSignerHandlers = handlers<ManagementOperations>()({
  listExternalJwtSigners: async ({ svc, list, reply }) => reply.list(await service.list(svc.deps, list)),
  detailExternalJwtSigner: async ({ svc, params, reply }) => reply.ok(await service.detail(svc.deps, params.id)),
  createExternalJwtSigner: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), externalJwtSignerEntity),
  updateExternalJwtSigner: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchExternalJwtSigner: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteExternalJwtSigner: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
});

/** Client `GET /external-jwt-signers`: anonymous, enabled signers, public fields (§8.4). */
export const clientExternalJwtSignerHandlers = handlers<ClientOperations>()({
  listExternalJwtSigners: async ({ svc, list, reply }) => reply.list(await listClientSigners(svc.deps, list)),
});
