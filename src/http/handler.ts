import type { Context } from 'hono';
import type { ClientCertificate, Deps } from '../deps.js';
import type { ApiName } from './access.js';
import type { OperationSpec } from './operation.js';
import type { RequestSession } from './session.js';
import type { QueryLists, QueryValues } from './validate.js';

/** What a handler receives: validated input, the caller and the dependencies. */
export interface OpContext<Body = any> {
  c: Context;
  api: ApiName;
  op: OperationSpec;
  deps: Deps;
  requestId: string;
  /** Path parameters. */
  params: Record<string, string>;
  /** First value of each query parameter. */
  query: QueryValues;
  /** Every value of each query parameter (repeatable parameters such as configTypes, roleFilter). */
  queries: QueryLists;
  /** The validated JSON body, or undefined when the operation has none or none was sent. */
  body: Body;
  /** The raw body for operations that take text (CSR PEM, certificates); empty otherwise. */
  rawBody: Uint8Array;
  /** The caller, when the request carried a valid `zt-session`. */
  session: import('./session.js').RequestSession | undefined;
  /** The caller, asserted present (operations whose access rule needs a session). */
  caller: RequestSession;
  clientCertificate(): ClientCertificate | undefined;
  /** Runs work after the response without delaying it. */
  defer(promise: Promise<unknown>): void;
}

export type Handler = (ctx: OpContext) => Promise<Response> | Response;

/** Handlers keyed by the spec's operationId. */
export type HandlerMap = Record<string, Handler>;
