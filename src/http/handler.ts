import type { ClientCertificate, Deps, ServiceContext } from '../deps.js';
import type { ClientOperations } from '../generated/client-types.js';
import type { ManagementOperations } from '../generated/management-types.js';
import type { Access, ApiName } from './access.js';

export type { ClientOperations, ManagementOperations };
/** Operations both APIs have (authenticate, current identity, MFA, ...): implemented once, listed in both. */
export type SharedOperations = Pick<ClientOperations, keyof ClientOperations & keyof ManagementOperations>;
import type { ListMeta, ListQueryParams } from '../crud/list-query.js';
import type { OperationSpec } from './operation.js';
import type { RequestSession } from './session.js';

/**
 * The shape of one generated operation type (src/generated/<api>-types.ts `Operations[operationId]`):
 * who may call it, its typed input and its responses by status.
 */
export interface OperationTypes {
  access: Access;
  path: object;
  query: object;
  headers: object;
  body: unknown;
  responses: object;
}

type SuccessStatus = 200 | 201 | 202;

/** The `data` of an operation's 2xx envelope: what its mapper must return. */
export type ResponseData<Op extends OperationTypes> = {
  [S in keyof Op['responses']]: S extends SuccessStatus ? (Op['responses'][S] extends { data?: infer D } ? Exclude<D, undefined> : never) : never;
}[keyof Op['responses']];

declare const replyBrand: unique symbol;
/** A response made by the operation's own `reply` helpers, so that its body is typed by the operation. */
export type Reply = Response & { readonly [replyBrand]: true };

/** How a handler answers; typed by the `data` of its operation's 2xx response. */
export interface Replies<Data> {
  /** 200 `{data, meta}`. */
  ok(data: Data, meta?: Record<string, unknown>): Reply;
  /** 200 `{data: [...], meta: {pagination, filterableFields}}`. */
  list(result: { data: Data; meta: ListMeta }): Reply;
  /** 201 with the new entity's id and its self link `./<collection>/<id>`. */
  created(id: string, entity: { collection: string }): Reply;
  /** 201 `{data, meta}` with the whole new entity (`POST /sessions`). */
  createdDetail(data: Data): Reply;
  /** 200 `{"data":{},"meta":{}}`: the answer of updates, patches, deletes and actions. */
  empty(): Reply;
  /** A response the handler built itself: non-JSON bodies (PEM, PKCS#7, PNG) or extra headers. */
  raw(response: Response): Reply;
}

interface BaseContext<Op extends OperationTypes> {
  api: ApiName;
  op: OperationSpec;
  deps: Deps;
  requestId: string;
  /** Path parameters. */
  params: Op['path'];
  /** Query parameters, converted to the spec's types; repeatable ones (roleFilter, configTypes) are arrays. */
  query: Op['query'];
  /**
   * The list parameters as sent (`filter`, `limit`, `offset`, `sort`), also where the operation does not
   * declare them: the controller honours them on every list, related-entity lists included.
   */
  list: ListQueryParams;
  /** Any request header (content negotiation); prefer the typed `headers` for the ones the spec declares. */
  requestHeader(name: string): string | undefined;
  /** A query parameter the controller honours but the spec does not declare (`asIdentity`); prefer `query`. */
  undeclaredQuery(name: string): string | undefined;
  /** Header parameters the operation declares. */
  headers: Op['headers'];
  /** The validated JSON body; undefined when the operation has none, or none was sent to an optional one. */
  body: Op['body'];
  /** The raw body for operations that take text (CSR PEM, certificates); empty otherwise. */
  rawBody: Uint8Array;
  /** What services receive: dependencies, caller, request id, client address, deferred work — never Hono. */
  svc: ServiceContext;
  clientCertificate(): ClientCertificate | undefined;
  /** Runs work after the response without delaying it. */
  defer(promise: Promise<unknown>): void;
  reply: Replies<ResponseData<Op>>;
}

/** What a handler receives. `caller` exists exactly where the operation's access rule needs a session. */
export type OpContext<Op extends OperationTypes> = BaseContext<Op> & (Op['access'] extends 'anonymous' ? { caller?: undefined } : { caller: RequestSession });

export type Handler<Op extends OperationTypes> = (ctx: OpContext<Op>) => Reply | Promise<Reply>;

/** Handlers keyed by operationId, each typed by its operation. */
export type HandlerMap<Ops> = { [K in keyof Ops]?: Ops[K] extends OperationTypes ? Handler<Ops[K]> : never };

/** Keys of `M` that are not operations of `Ops`: a handler for an unknown operationId. */
type Unknown<M, Ops> = { [K in Exclude<keyof M, keyof Ops>]: `no operation ${K & string} in the specification` };

/**
 * Declares handlers for operations of one API (or of the operations both APIs share). Handler
 * parameters are typed from the operation, and an unknown operationId is a compile error.
 *
 * ```ts
 * export const identityHandlers = handlers<ManagementOperations>()({
 *   async detailIdentity({ svc, params, reply }) { return reply.ok(await identityService.detail(svc.deps, params.id)); },
 * });
 * ```
 */
export function handlers<Ops>() {
  return <const M extends HandlerMap<Ops>>(map: M & Unknown<M, Ops>): M => map;
}

type Duplicates<T extends readonly object[], Seen extends PropertyKey = never> = T extends readonly [infer H, ...infer R extends readonly object[]]
  ? (keyof H & Seen) | Duplicates<R, Seen | keyof H>
  : never;
type Disjoint<T extends readonly object[]> = [Duplicates<T>] extends [never] ? unknown : { duplicateOperationIds: Duplicates<T> };

/**
 * One API's handler map from the resources' maps. An operationId handled twice is a compile error
 * (and, should types be bypassed, a start-up error): one operation, one handler.
 */
export function mergeHandlers<Ops>() {
  return <const T extends readonly HandlerMap<Ops>[]>(...maps: T & Disjoint<T>): HandlerMap<Ops> => {
    const merged: Record<string, unknown> = {};
    for (const map of maps as readonly object[]) {
      for (const [id, handler] of Object.entries(map)) {
        if (id in merged) throw new Error(`operation ${id} has two handlers`);
        merged[id] = handler;
      }
    }
    return merged as HandlerMap<Ops>;
  };
}
