import { handlers, type ManagementOperations } from '../../http/handler.js';
import type { ListReadAhead } from '../../http/register.js';
import { identityEntity } from './entity.js';
import { disableIdentity, enableIdentity, identityService as service, listIdentityAuthenticators, listRoleAttributes } from './service.js';

/** Management `/identities`, `/identity-role-attributes` and the identity sub-lists implemented so far. */
export const identityHandlers = handlers<ManagementOperations>()({
  listIdentities: async ({ svc, list, query, reply }) => reply.list(await service.list(svc.deps, list, query)),
  detailIdentity: async ({ svc, params, reply }) => reply.ok(await service.detail(svc.deps, params.id)),
  createIdentity: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), identityEntity),
  updateIdentity: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchIdentity: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteIdentity: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
  // The controller writes no body here (reference §2.1 quirk); clients accept the usual empty envelope.
  disableIdentity: async ({ svc, params, body, reply }) => (await disableIdentity(svc.deps, params.id, body.durationMinutes), reply.empty()),
  enableIdentity: async ({ svc, params, reply }) => (await enableIdentity(svc.deps, params.id), reply.empty()),
  listIdentityRoleAttributes: async ({ svc, list, reply }) => reply.list(await listRoleAttributes(svc.deps, list)),
  getIdentityAuthenticators: async ({ svc, params, list, reply }) => reply.list(await listIdentityAuthenticators(svc.deps, params.id, list)),
});

/** The identity list's page, read with the session check where that saves a round trip (src/http/register.ts `ListReadAhead`). */
export const identityListReadAhead: ListReadAhead = (deps, list, query, guard) => service.listReadAhead?.(deps, list, query as { roleFilter?: string[]; roleSemantic?: string }, guard);
