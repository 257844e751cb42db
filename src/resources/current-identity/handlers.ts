import { empty, ok } from '../../http/envelope.js';
import type { HandlerMap, OpContext } from '../../http/handler.js';
import { currentIdentity, listOwnAuthenticators, ownAuthenticator, updateOwnAuthenticator, type SelfUpdateBody } from './service.js';

/** `/current-identity` and its authenticators, on both APIs. */
export const currentIdentityHandlers: HandlerMap = {
  async getCurrentIdentity({ caller, deps }) {
    return ok(await currentIdentity(deps, caller));
  },
  async listCurrentIdentityAuthenticators({ caller, deps, query }) {
    const { data, meta } = await listOwnAuthenticators(deps, caller, query);
    return ok(data, meta as unknown as Record<string, unknown>);
  },
  async detailCurrentIdentityAuthenticator({ caller, deps, params }) {
    return ok(await ownAuthenticator(deps, caller, params.id));
  },
  async updateCurrentIdentityAuthenticator(ctx: OpContext<SelfUpdateBody>) {
    await updateOwnAuthenticator(ctx, true);
    return empty();
  },
  async patchCurrentIdentityAuthenticator(ctx: OpContext<SelfUpdateBody>) {
    await updateOwnAuthenticator(ctx, false);
    return empty();
  },
};
