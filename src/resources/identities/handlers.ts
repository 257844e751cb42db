import { crudHandlers, listResponse } from '../../http/crud.js';
import { empty } from '../../http/envelope.js';
import type { HandlerMap, OpContext } from '../../http/handler.js';
import { identityEntity } from './repo.js';
import { disableIdentity, enableIdentity, identityService, listIdentityAuthenticators, listRoleAttributes } from './service.js';

/** Management `/identities`, `/identity-role-attributes` and the identity sub-lists implemented so far. */
export const identityHandlers: HandlerMap = {
  ...crudHandlers(identityEntity, identityService, {
    list: 'listIdentities',
    detail: 'detailIdentity',
    create: 'createIdentity',
    update: 'updateIdentity',
    patch: 'patchIdentity',
    delete: 'deleteIdentity',
  }),
  async disableIdentity({ deps, params, body }: OpContext<{ durationMinutes: number }>) {
    await disableIdentity(deps, params.id, body.durationMinutes);
    // The controller writes no body here (reference §2.1 quirk); clients accept the usual empty envelope.
    return empty();
  },
  async enableIdentity({ deps, params }) {
    await enableIdentity(deps, params.id);
    return empty();
  },
  async listIdentityRoleAttributes({ deps, query }) {
    return listResponse(await listRoleAttributes(deps, query));
  },
  async getIdentityAuthenticators({ deps, params, query }) {
    return listResponse(await listIdentityAuthenticators(deps, params.id, query));
  },
};
