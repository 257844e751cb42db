import { crudHandlers } from '../../http/crud.js';
import { empty } from '../../http/envelope.js';
import type { HandlerMap } from '../../http/handler.js';
import { caEntity } from './repo.js';
import { caJwt, caService, verifyCa } from './service.js';

/** Management `/cas` (reference auth-and-pki §7). */
export const caHandlers: HandlerMap = {
  ...crudHandlers(caEntity, caService, { list: 'listCas', detail: 'detailCa', create: 'createCa', update: 'updateCa', patch: 'patchCa', delete: 'deleteCa' }),
  async verifyCa({ deps, params, rawBody }) {
    await verifyCa(deps, params.id, rawBody);
    return empty();
  },
  async getCaJwt({ deps, params }) {
    return new Response(await caJwt(deps, params.id), { status: 200, headers: { 'content-type': 'application/jwt' } });
  },
};
