import { ApiError, type ErrorCause } from './errors.js';

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

export interface Link {
  href: string;
}
export type Links = Record<string, Link>;

/** Builds `_links` from relative paths: links('./identities/x', {sessions: 'sessions'}) nests under self. */
export function links(self: string, nested: Record<string, string> = {}): Links {
  const out: Links = { self: { href: self } };
  for (const [name, target] of Object.entries(nested)) {
    out[name] = { href: target.startsWith('./') ? target : `${self}/${target}` };
  }
  return out;
}

/** An entityRef: `{_links, entity, id, name}`. */
export function entityRef(entity: string, id: string, name: string, nested?: Record<string, string>) {
  return { _links: links(`./${entity}/${id}`, nested), entity, id, name };
}
