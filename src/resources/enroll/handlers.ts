import { enroll, type EnrollRequest } from '../../enrollment/enroll.js';
import { enrollmentChallenge, enrollmentJwks } from '../../enrollment/jwks.js';
import { json, ok } from '../../http/envelope.js';
import { ApiError } from '../../http/errors.js';
import type { HandlerMap, OpContext } from '../../http/handler.js';
import { mediaType, parseJsonBody } from '../../http/validate.js';

/** Content types whose body is the bare CSR PEM ("legacy" mode, reference §5.3). */
const LEGACY_TYPES = new Set(['application/x-pem-file', 'application/pkcs7', 'text/plain']);

/** No `Accept`, or one naming application/json or a wildcard. */
function acceptsJson(accept: string | undefined): boolean {
  if (!accept || accept.trim() === '') return true;
  return accept.split(',').some((part) => {
    const type = part.split(';')[0].trim().toLowerCase();
    return type === 'application/json' || type === '*/*' || type === 'application/*';
  });
}

function text(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

interface GenericEnrollBody {
  clientCsr?: string | null;
  certCsr?: string | null;
  name?: string | null;
  password?: string | null;
}

/** The client API's `/enroll` family. Router flows (`erott`, `/enroll/extend/router`) arrive with edge routers. */
export const enrollHandlers: HandlerMap = {
  /** `POST /enroll?method=&token=`: PEM body (legacy) or JSON body (spec mode). */
  async enroll(ctx: OpContext<GenericEnrollBody | undefined>) {
    const method = ctx.query.method || undefined;
    const media = mediaType(ctx.c.req.header('content-type'));
    const legacy = (media !== undefined && LEGACY_TYPES.has(media)) || (media === undefined && method === 'ca');
    if (!acceptsJson(ctx.c.req.header('accept'))) {
      if (legacy) throw new ApiError('UNSUPPORTED_MEDIA');
      throw new ApiError('COULD_NOT_VALIDATE', { code: 'UNHANDLED', message: 'no acceptable media type: the response is application/json' }, 406);
    }
    const req: EnrollRequest = { method, token: ctx.query.token || undefined, clientCertificate: ctx.clientCertificate() };
    if (legacy) req.csrPem = text(ctx.rawBody);
    else if (ctx.body) {
      req.csrPem = ctx.body.clientCsr ?? undefined;
      req.password = ctx.body.password ?? undefined;
      req.name = ctx.body.name ?? undefined;
    }
    return ok(await enroll(ctx.deps, req));
  },
  /** `POST /enroll/ott` `{token, clientCsr}`. */
  async enrollOtt(ctx: OpContext<{ token?: string | null; clientCsr?: string | null }>) {
    return ok(await enroll(ctx.deps, { method: 'ott', token: ctx.body.token ?? undefined, csrPem: ctx.body.clientCsr ?? undefined }));
  },
  /** `POST /enroll/updb?token=` `{password}` (the body has no schema in the spec: parsed here). */
  async enrollUpdb(ctx: OpContext) {
    const body = ctx.rawBody.byteLength > 0 ? (parseJsonBody(ctx.rawBody) as { password?: unknown } | null) : null;
    const password = body && typeof body === 'object' && typeof body.password === 'string' ? body.password : undefined;
    return ok(await enroll(ctx.deps, { method: 'updb', token: ctx.query.token, password }));
  },
  /** `POST /enroll/ottca` `{token}` with the TLS client certificate. */
  async enrollOttCa(ctx: OpContext<{ token?: string | null }>) {
    return ok(await enroll(ctx.deps, { method: 'ottca', token: ctx.body.token ?? undefined, clientCertificate: ctx.clientCertificate() }));
  },
  /** `POST /enroll/ca` with the TLS client certificate; the body is ignored. */
  async enrollCa(ctx: OpContext) {
    return ok(await enroll(ctx.deps, { method: 'ca', clientCertificate: ctx.clientCertificate() }));
  },
  /** `GET /enroll/jwks`: the enrollment JWT signing key (a bare JWKS, as the spec's response). */
  async getEnrollmentJwks({ deps }) {
    return json(await enrollmentJwks(deps));
  },
  /** `POST /enroll/challenge` `{nonce, keyId}`: the nonce signed with that key (a bare nonceSignature). */
  async enrollmentChallenge({ deps, body }: OpContext<{ nonce: string; keyId: string }>) {
    return json(await enrollmentChallenge(deps, body.nonce, body.keyId));
  },
};
