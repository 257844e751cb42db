import { enroll, type EnrollOutcome, type EnrollRequest } from '../../enrollment/enroll.js';
import { enrollmentChallenge, enrollmentJwks } from '../../enrollment/jwks.js';
import { extendRouter } from '../../enrollment/router.js';
import { ApiError } from '../../errors.js';
import { json, ok } from '../../http/envelope.js';
import { handlers, type ClientOperations, type Replies, type Reply } from '../../http/handler.js';
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

/**
 * The enrollment's outcome in the envelope: `{cert}` (the spec's enrollmentCerts) for identity certificates,
 * `{ca, cert, serverCert}` for routers, `{username}` for updb (reference §5.6; not in the spec, which
 * declares an empty body there).
 */
function enrolled(reply: Replies<unknown>, outcome: EnrollOutcome): Reply {
  return reply.raw(ok(outcome));
}

/** The client API's `/enroll` family, for identities and routers. */
export const enrollHandlers = handlers<ClientOperations>()({
  /** `POST /enroll?method=&token=`: PEM body (legacy) or JSON body (spec mode). */
  async enroll({ svc, query, body, rawBody, requestHeader, clientCertificate, reply }) {
    const method = query.method || undefined;
    const media = mediaType(requestHeader('content-type'));
    const legacy = (media !== undefined && LEGACY_TYPES.has(media)) || (media === undefined && method === 'ca');
    if (!acceptsJson(requestHeader('accept'))) {
      if (legacy) throw new ApiError('UNSUPPORTED_MEDIA');
      throw new ApiError('COULD_NOT_VALIDATE', { code: 'UNHANDLED', message: 'no acceptable media type: the response is application/json' }, 406);
    }
    const req: EnrollRequest = { method, token: query.token || undefined, clientCertificate: clientCertificate() };
    if (legacy) req.csrPem = text(rawBody);
    else if (body) {
      req.csrPem = body.clientCsr ?? undefined;
      // Routers send `{certCsr, serverCertCsr}` (reference §5.8).
      req.certCsrPem = body.certCsr ?? undefined;
      req.serverCsrPem = body.serverCertCsr ?? undefined;
      req.password = body.password ?? undefined;
      req.name = body.name ?? undefined;
    }
    return enrolled(reply, await enroll(svc.deps, req));
  },
  /** `POST /enroll/ott` `{token, clientCsr}`. */
  enrollOtt: async ({ svc, body, reply }) => enrolled(reply, await enroll(svc.deps, { method: 'ott', token: body.token ?? undefined, csrPem: body.clientCsr ?? undefined })),
  /** `POST /enroll/erott` `{token, clientCsr, serverCsr}`: an edge router's enrollment with its own field names. */
  enrollErOtt: async ({ svc, body, reply }) =>
    enrolled(reply, await enroll(svc.deps, { method: 'erott', token: body.token ?? undefined, csrPem: body.clientCsr ?? undefined, serverCsrPem: body.serverCsr ?? undefined })),
  /** `POST /enroll/extend/router` `{certCsr, serverCertCsr}` over TLS with the router's current client certificate. */
  extendRouterEnrollment: async ({ svc, body, clientCertificate, reply }) => reply.ok(await extendRouter(svc.deps, clientCertificate(), body.certCsr, body.serverCertCsr)),
  /** `POST /enroll/updb?token=` `{password}` (the body has no schema in the spec: parsed here). */
  async enrollUpdb({ svc, query, rawBody, reply }) {
    const parsed = rawBody.byteLength > 0 ? (parseJsonBody(rawBody) as { password?: unknown } | null) : null;
    const password = parsed && typeof parsed === 'object' && typeof parsed.password === 'string' ? parsed.password : undefined;
    return enrolled(reply, await enroll(svc.deps, { method: 'updb', token: query.token, password }));
  },
  /** `POST /enroll/ottca` `{token}` with the TLS client certificate. */
  enrollOttCa: async ({ svc, body, clientCertificate, reply }) => enrolled(reply, await enroll(svc.deps, { method: 'ottca', token: body.token ?? undefined, clientCertificate: clientCertificate() })),
  /** `POST /enroll/ca` with the TLS client certificate; the body is ignored. */
  enrollCa: async ({ svc, clientCertificate, reply }) => enrolled(reply, await enroll(svc.deps, { method: 'ca', clientCertificate: clientCertificate() })),
  /** `GET /enroll/jwks`: the enrollment JWT signing key (a bare JWKS, as the spec's response). */
  getEnrollmentJwks: async ({ svc, reply }) => reply.raw(json(await enrollmentJwks(svc.deps))),
  /** `POST /enroll/challenge` `{nonce, keyId}`: the nonce signed with that key (a bare nonceSignature). */
  enrollmentChallenge: async ({ svc, body, reply }) => reply.raw(json(await enrollmentChallenge(svc.deps, body.nonce, body.keyId))),
});
