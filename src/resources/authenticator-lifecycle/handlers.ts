import { extendAuthenticator, verifyExtension } from '../../enrollment/extend.js';
import { created, empty, ok } from '../../http/envelope.js';
import type { HandlerMap, OpContext } from '../../http/handler.js';
import { reEnroll, requestExtend, requestExtendAll } from './service.js';

/** Certificate extension on both APIs (`/current-identity/authenticators/{id}/extend[-verify]`, §6.5). */
export const certExtensionHandlers: HandlerMap = {
  async extendCurrentIdentityAuthenticator(ctx: OpContext<{ clientCertCsr: string }>) {
    return ok(await extendAuthenticator(ctx.deps, ctx.caller, ctx.params.id, ctx.clientCertificate(), ctx.body.clientCertCsr));
  },
  async extendVerifyCurrentIdentityAuthenticator(ctx: OpContext<{ clientCert: string }>) {
    await verifyExtension(ctx.deps, ctx.caller, ctx.params.id, ctx.body.clientCert);
    return empty();
  },
};

/** Management: extension requests and re-enrollment of authenticators. */
export const authenticatorLifecycleHandlers: HandlerMap = {
  async requestExtendAuthenticator({ deps, params, body }: OpContext<{ rollKeys?: boolean | null }>) {
    await requestExtend(deps, params.id, body.rollKeys === true);
    return empty();
  },
  async requestExtendAllCertAuthenticators({ deps, params, body }: OpContext<{ rollKeys?: boolean | null }>) {
    await requestExtendAll(deps, params.id, body.rollKeys === true);
    return empty();
  },
  async reEnrollAuthenticator({ deps, params, body }: OpContext<{ expiresAt: string }>) {
    const id = await reEnroll(deps, params.id, body.expiresAt);
    return created(id, `./enrollments/${id}`);
  },
};
