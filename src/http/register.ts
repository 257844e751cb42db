import type { Context, Hono } from 'hono';
import type * as z from 'zod/mini';
import { clientAddress } from '../auth/client-address.js';
import { withSecondaryExtJwt } from '../auth/ext-jwt-secondary.js';
import { bearerCandidates } from '../auth/ext-jwt/verify.js';
import type { ListQueryParams } from '../crud/list-query.js';
import type { SQL } from '../db/client.js';
import type { PendingRead } from '../db/list-page.js';
import type { Deps, Runtime, ServiceContext } from '../deps.js';
import type { Access, ApiName } from './access.js';
import { created, empty, hasHeader, json, ok, withHeaders } from './envelope.js';
import { ApiError, messageError } from '../errors.js';
import type { HandlerMap, OperationTypes, OpContext, Replies, Reply } from './handler.js';
import type { OperationSpec } from './operation.js';
import { iso } from '../lib/time.js';
import { extend } from '../lib/objects.js';
import { ADMIN_CALLER, loadBearerSession, loadSession, readsAhead, type RequestSession, type SessionRider } from './session.js';
import { mediaType, parseJsonBody, readBodyCapped, validateParams, zodIssueToError } from './validate.js';

export interface ApiDefinition {
  name: ApiName;
  basePath: string;
  operations: readonly OperationSpec[];
  schemas: Record<string, unknown>;
  handlers: HandlerMap<unknown>;
  /** Operations that read something along with the session check, in its statement (`SessionRider`). */
  riders?: Readonly<Record<string, SessionRider<unknown>>>;
  /** Admin lists whose page is read in the same round trip as the session check, where that saves one (`ListReadAhead`). */
  readAhead?: Readonly<Record<string, ListReadAhead>>;
}

/**
 * The first statement of an admin list (its page, or what decides whether a kept page holds), from the
 * request's list, (unchecked) query and path parameters, guarded by `guard` (src/db/list-page.ts
 * `keptPageReadAhead`); undefined when the list is not read so. May throw on
 * parameters the operation refuses: the request then reads as usual and is refused after the session check.
 */
export type ListReadAhead = (deps: Deps, list: ListQueryParams, query: Record<string, unknown>, guard: SQL, params: Record<string, string>) => PendingRead | undefined;

/** Handlers as the router calls them: the per-operation types are a compile-time contract only. */
type AnyHandler = (ctx: OpContext<OperationTypes>) => Reply | Promise<Reply>;

/** The reply helpers; typed per operation by `Replies<Op>`, one object at run time. */
const REPLIES: Replies<any> = {
  ok: (data, meta) => ok(data, meta) as Reply,
  list: (result) => ok(result.data, result.meta as unknown as Record<string, unknown>) as Reply,
  created: (id, entity) => created(id, `./${entity.collection}/${id}`) as Reply,
  createdDetail: (data) => json({ data, meta: {} }, 201) as Reply,
  empty: () => empty() as Reply,
  raw: (response) => response as Reply,
};

/** `/identities/{id}` -> `/identities/:id` */
export function honoPath(basePath: string, specPath: string): string {
  return basePath + (specPath === '/' ? '' : specPath.replace(/\{([^}]+)\}/g, ':$1'));
}

const EMPTY: Uint8Array = new Uint8Array(0);

/**
 * Mounts every operation of an API on the app: access rule, parameter and body validation, then the
 * handler, or 501 NOT_IMPLEMENTED when there is none yet. Fails at start-up when a handler names an
 * operation the specification does not have.
 */
export function registerApi(app: Hono, api: ApiDefinition, runtime: Runtime): void {
  const known = new Set(api.operations.map((o) => o.operationId));
  for (const id of Object.keys(api.handlers)) {
    if (!known.has(id)) throw new Error(`${api.name} API: handler "${id}" matches no operation of the specification`);
  }
  const paths = new Set<string>();
  for (const op of api.operations) {
    const path = honoPath(api.basePath, op.path);
    paths.add(path);
    const access = op.access;
    const handler = (api.handlers as Record<string, AnyHandler | undefined>)[op.operationId];
    const body = bodyParam(op, api.schemas);
    const rider = api.riders?.[op.operationId];
    // Only admin lists: the guard of a page read before the session check admits admins' sessions alone.
    const readAhead = access === 'admin' ? api.readAhead?.[op.operationId] : undefined;
    app.on(op.method, path, (c) => run(c, api.name, op, access, handler, body, runtime, rider, readAhead));
  }
  // A known path with another method is 405, not 404.
  for (const path of paths) {
    app.all(path, () => {
      throw new ApiError('METHOD_NOT_ALLOWED');
    });
  }
}

interface BodySpec {
  name: string;
  required: boolean;
  /** Null for raw text bodies. */
  schema: z.ZodMiniType | null;
  discriminator?: { field: string; subtypes: Map<string, z.ZodMiniType> };
  array: boolean;
}

function bodyParam(op: OperationSpec, schemas: Record<string, unknown>): BodySpec | undefined {
  const p = op.params.find((x) => x.in === 'body');
  if (!p || !p.schema) return undefined;
  const discriminators = schemas.discriminators as Record<string, BodySpec['discriminator']>;
  if (p.schema === '$string') return { name: p.name, required: !!p.required, schema: null, array: false };
  const array = p.schema.startsWith('$array:');
  const name = array ? p.schema.slice(7) : p.schema;
  const schema = schemas[name] as z.ZodMiniType | undefined;
  if (!schema) throw new Error(`no schema ${name} for ${op.operationId}`);
  return { name: p.name, required: !!p.required, schema, discriminator: discriminators[name], array };
}

function acceptsJson(op: OperationSpec): boolean {
  return !op.consumes || op.consumes.includes('application/json');
}

async function run(
  c: Context,
  api: ApiName,
  op: OperationSpec,
  access: Access,
  handler: AnyHandler | undefined,
  bodySpec: BodySpec | undefined,
  runtime: Runtime,
  rider: SessionRider<unknown> | undefined,
  readAhead: ListReadAhead | undefined,
): Promise<Response> {
  const requestId = c.get('requestId') as string;
  c.set('operationId' as never, op.operationId as never);
  const deps = await runtime.deps(c.env);
  let address: string | undefined;
  // The request's callbacks are methods, not `const f = () => …`: where function names are kept (tsx on
  // Node; the worker bundle no longer keeps them, wrangler.toml), a named closure made on every request
  // pays a `defineProperty` for its name (~1 % of a worker's CPU on the session rows when it kept them).
  // None uses `this`, so each may be passed on alone.
  const svc: ServiceContext = {
    deps,
    caller: undefined,
    requestId,
    clientAddress() {
      return (address ??= clientAddress(c, deps.config.trustedProxies));
    },
    defer(p: Promise<unknown>) {
      runtime.waitUntil(p.catch((e) => deps.log.error('deferred write failed', { requestId, error: String(e) })), safeExecutionCtx(c));
    },
    bearerTokens() {
      return bearerCandidates(c.req.header('authorization'));
    },
  };
  const { defer } = svc;

  const method = op.method;
  const hasBody = method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE';
  // A rider that reads with the body's values gets them before the session check; a body the operation
  // refuses is refused after it, as any other (401 before 400).
  let early: { raw: Uint8Array; parsed: unknown } | undefined;
  let earlyError: unknown;
  let riderParams: Record<string, unknown> | undefined;
  let sessionRider = rider;
  if (rider?.params) {
    sessionRider = undefined;
    if (hasBody && access !== 'anonymous' && c.req.header('zt-session')) {
      try {
        early = await readBody(c, op, bodySpec, runtime);
        riderParams = rider.params(early.parsed);
        if (riderParams) sessionRider = rider;
      } catch (e) {
        earlyError = e;
      }
    }
  }

  const search = searchParamsOf(c.req.url);
  const params = c.req.param() as Record<string, string>;
  const list = listParams(search);
  // Checked once: before the session check when a list reads ahead (its values build the statement), else after.
  let checked: ReturnType<typeof validateParams> | undefined;

  let session: RequestSession | undefined;
  if (access !== 'anonymous') {
    const token = c.req.header('zt-session');
    if (token) {
      let pending: PendingRead | undefined;
      if (readAhead && readsAhead(deps)) {
        try {
          checked = validateParams(op, search, params, (n) => c.req.header(n));
          pending = readAhead(deps, list, checked.query, ADMIN_CALLER, params);
        } catch {
          // Refused below, after the session check, as any other request.
        }
      }
      session = await loadSession(deps, token, defer, sessionRider, riderParams, pending);
      if (!session) throw new ApiError('UNAUTHORIZED');
      session = await withSecondaryExtJwt(deps, session, bearerCandidates(c.req.header('authorization')), requestId);
    } else {
      // No zt-session: an OIDC access token may stand in for it (zt-session wins when both are sent).
      const candidates = deps.config.oidc.enabled ? bearerCandidates(c.req.header('authorization')) : [];
      if (candidates.length > 0) session = await loadBearerSession(deps, candidates, svc.clientAddress, defer);
      if (!session) throw messageError('UNAUTHORIZED', 'unauthenticated for invalid credentials');
    }
    if (access !== 'partial' && !session.fullyAuthenticated) throw new ApiError('UNAUTHORIZED');
    if (access === 'admin' && !session.isAdmin) throw new ApiError('UNAUTHORIZED');
  }

  const { query, headers } = checked ?? validateParams(op, search, params, (n) => c.req.header(n));

  let body: unknown;
  let rawBody: Uint8Array = EMPTY;
  if (earlyError !== undefined) throw earlyError;
  if (early) ({ raw: rawBody, parsed: body } = early);
  else if (hasBody || (bodySpec && method === 'GET')) ({ raw: rawBody, parsed: body } = await readBody(c, op, bodySpec, runtime));

  // Input is validated even for operations not implemented yet, so bad input is always a 4xx.
  if (!handler) throw new ApiError('NOT_IMPLEMENTED', { code: 'NOT_IMPLEMENTED', message: `operation ${op.operationId} is not implemented` });

  svc.caller = session;
  const ctx = {
    api,
    op,
    deps,
    requestId,
    params,
    query,
    list: session?.readAhead ? extend(list, { readAhead: session.readAhead }) : list,
    requestHeader(name: string) {
      return c.req.header(name);
    },
    undeclaredQuery(name: string) {
      return search.get(name) ?? undefined;
    },
    headers,
    body,
    rawBody,
    svc,
    caller: session,
    clientCertificate() {
      return runtime.clientCertificate(c.req.raw, c.env);
    },
    defer,
    reply: REPLIES,
  } as OpContext<OperationTypes>;
  const response = await handler(ctx);
  if (!session || hasHeader(response, 'expiration-seconds')) return response;
  // An access token's remaining lifetime (reference oidc.md §7.2), else the inactivity timeout.
  const seconds = session.oidc ? Math.max(0, Math.floor((session.expiresAt - deps.now()) / 1000)) : deps.config.sessionTimeoutSeconds;
  return withHeaders(response, { 'expiration-seconds': String(seconds), 'expires-at': iso(session.expiresAt) }, runtime.remakeForHeaders === true);
}

/** The request's body, bounded, and its value parsed and validated against the operation's body schema. */
async function readBody(c: Context, op: OperationSpec, bodySpec: BodySpec | undefined, runtime: Runtime): Promise<{ raw: Uint8Array; parsed: unknown }> {
  const raw = await readBodyCapped(runtime, c.req.raw, c.env);
  return { raw, parsed: bodySpec ? parseBody(op, bodySpec, raw, c.req.header('content-type')) : undefined };
}

const NO_QUERY: Pick<URLSearchParams, 'get' | 'getAll'> = { get: () => null, getAll: () => [] };

/** The query of a request URL; most requests have none, and a whole `URL` costs ~3 µs to parse. */
function searchParamsOf(url: string): Pick<URLSearchParams, 'get' | 'getAll'> {
  const q = url.indexOf('?');
  if (q < 0) return NO_QUERY;
  // As the URL parser reads it: a '#' ends the query; URLSearchParams drops the leading '?'.
  const hash = url.indexOf('#', q);
  return new URLSearchParams(hash < 0 ? url.slice(q) : url.slice(q, hash));
}

/** The list parameters, first value of each, as the list machinery reads them. */
function listParams(search: Pick<URLSearchParams, 'get'>): ListQueryParams {
  const out: ListQueryParams = {};
  for (const name of ['filter', 'limit', 'offset', 'sort'] as const) {
    const v = search.get(name);
    if (v !== null) out[name] = v;
  }
  return out;
}

function parseBody(op: OperationSpec, spec: BodySpec, raw: Uint8Array, contentType: string | undefined): unknown {
  if (raw.byteLength === 0) {
    if (spec.required) throw new ApiError('COULD_NOT_VALIDATE', { field: spec.name, reason: `${spec.name} in body is required`, value: '<nil>' });
    return undefined;
  }
  const media = mediaType(contentType);
  if (spec.schema === null) return undefined; // raw text body, handled by the operation itself
  if (media !== 'application/json') {
    // Operations that take other media types (enrollment) read rawBody themselves.
    if (!acceptsJson(op) || (op.consumes && media && op.consumes.includes(media))) return undefined;
    throw new ApiError('COULD_NOT_VALIDATE', { code: 'UNHANDLED', message: `unsupported media type ${media ?? 'application/octet-stream'}, expected application/json` }, 415);
  }
  const input = parseJsonBody(raw);
  if (spec.array) {
    if (!Array.isArray(input)) throw new ApiError('COULD_NOT_VALIDATE', { field: spec.name, reason: `${spec.name} in body must be of type array`, value: typeof input });
    return input.map((item) => check(schemaFor(spec, item), item));
  }
  return check(schemaFor(spec, input), input);
}

/** A polymorphic body (or array item) is validated as the sub-type its discriminator names; otherwise as the base. */
function schemaFor(spec: BodySpec, input: unknown): z.ZodMiniType {
  const schema = spec.schema!;
  if (!spec.discriminator || !input || typeof input !== 'object' || Array.isArray(input)) return schema;
  const tag = (input as Record<string, unknown>)[spec.discriminator.field];
  return (typeof tag === 'string' ? spec.discriminator.subtypes.get(tag) : undefined) ?? schema;
}

function check(schema: z.ZodMiniType, input: unknown): unknown {
  const result = schema.safeParse(input);
  if (!result.success) throw zodIssueToError(result.error.issues[0], input);
  return result.data;
}

function safeExecutionCtx(c: Context): unknown {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

