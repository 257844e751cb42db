import type { Context } from 'hono';
import { ApiError, type ErrorCause } from '../errors.js';
import { serialise } from '../lib/json.js';
import { extend } from '../lib/objects.js';

/** The `meta` every error envelope carries. */
export const ERROR_META = { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' } as const;

const JSON_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json' };

/** What an envelope response was made of, kept so that later layers can add headers by remaking it. */
interface Parts {
  /** Text, or UTF-8 bytes when parts were serialised once, or their pieces for a large answer (src/lib/json.ts). */
  body: string | Uint8Array | readonly Uint8Array[];
  status: number;
  headers: Readonly<Record<string, string>>;
}
const partsOf = new WeakMap<Response, Parts>();

function respond(body: Parts['body'], status: number, headers: Readonly<Record<string, string>>): Response {
  const response = typeof body === 'string' || body instanceof Uint8Array ? new Response(body, { status, headers }) : piecesResponse(body, status, headers);
  partsOf.set(response, { body, status, headers });
  return response;
}

/** An answer given as pieces: streamed as they are, with its length (each response its own stream: a remake makes another). */
function piecesResponse(pieces: readonly Uint8Array[], status: number, headers: Readonly<Record<string, string>>): Response {
  let length = 0;
  for (const p of pieces) length += p.length;
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < pieces.length) controller.enqueue(pieces[next++]);
      else controller.close();
    },
  });
  return new Response(stream, { status, headers: extend(headers, { 'content-length': String(length) }) });
}

export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return respond(serialise(body), status, headers ? extend(JSON_HEADERS, headers) : JSON_HEADERS);
}

/** The headers with the added ones over them, `vary` values joined; copied key by key (`extend`, not spread). */
function withAdded(headers: Readonly<Record<string, string>>, added: Readonly<Record<string, string>>): Record<string, string> {
  const out = extend(headers, added) as Record<string, string>;
  if (headers.vary && added.vary) out.vary = `${headers.vary}, ${added.vary}`;
  return out;
}

/**
 * The response with these headers added (`vary` is appended to, the others replace). With `remake`, a
 * response the envelope made is remade with one plain header object: on Node, reading or changing
 * `headers` turns the adapter's lightweight response into a full `Headers` (a measured ~15 % of a small
 * request). Otherwise, and for any other response, the headers are changed in place (cheaper on Workers,
 * whose responses are native); the response then no longer counts as the envelope's, so no later remake
 * can drop what was set.
 */
export function withHeaders(response: Response, added: Readonly<Record<string, string>>, remake: boolean): Response {
  const parts = partsOf.get(response);
  if (remake && parts !== undefined) return respond(parts.body, parts.status, withAdded(parts.headers, added));
  partsOf.delete(response);
  const h = response.headers;
  for (const name in added) {
    if (name === 'vary') h.append(name, added[name]);
    else h.set(name, added[name]);
  }
  return response;
}

/**
 * Puts `response` in place of the context's response. Assigning `c.res` over an existing response
 * makes Hono copy the old one's headers into a remade new one; clearing it first replaces it as is.
 */
export function replaceResponse(c: Context, response: Response): void {
  c.res = undefined;
  c.res = response;
}

/** Whether the response has this header (lower-case name), without materialising an envelope response's headers. */
export function hasHeader(response: Response, name: string): boolean {
  const parts = partsOf.get(response);
  return parts === undefined ? response.headers.has(name) : parts.headers[name] !== undefined;
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

