import { ApiError, type ErrorCause } from '../errors.js';

/** The `meta` every error envelope carries. */
export const ERROR_META = { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' } as const;

const JSON_HEADERS = { 'content-type': 'application/json' };

export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS });
}

/** 200 `{data, meta}`. */
export function ok(data: unknown, meta: Record<string, unknown> | null = {}): Response {
  return json({ data, meta });
}

/** 200 `{"data":{},"meta":{}}`: the answer of updates, patches, deletes and actions. */
export function empty(): Response {
  return json({ data: {}, meta: {} });
}

/** 201 with the new entity's id and self link, e.g. created(id, `./identities/${id}`). */
export function created(id: string, href: string, extra?: Record<string, unknown>): Response {
  return json({ data: { id, _links: { self: { href } }, ...extra }, meta: {} }, 201);
}

export function errorResponse(error: ApiError, requestId: string): Response {
  const body: { code: string; message: string; requestId: string; cause?: ErrorCause } = {
    code: error.code,
    message: error.message,
    requestId,
  };
  if (error.causeDetail && Object.keys(error.causeDetail).length > 0) body.cause = error.causeDetail;
  return json({ error: body, meta: ERROR_META }, error.status);
}

