import { ok } from '../../http/envelope.js';
import type { HandlerMap } from '../../http/handler.js';
import { loadIdentityExtras } from '../identities/extras-repo.js';
import { renderIdentity } from '../identities/mapper.js';

export const currentIdentityHandlers: HandlerMap = {
  async getCurrentIdentity({ caller, deps }) {
    const extras = await loadIdentityExtras(deps.db, caller.identity);
    // The caller holds a session right now.
    return ok(renderIdentity(caller.identity, { ...extras, hasApiSession: true }, deps.now()));
  },
};
