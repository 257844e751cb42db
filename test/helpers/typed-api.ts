import * as clientOps from '../../src/generated/client-operations.js';
import type { ApiErrorEnvelope, ClientOperations } from '../../src/generated/client-types.js';
import * as managementOps from '../../src/generated/management-operations.js';
import type { ManagementOperations } from '../../src/generated/management-types.js';
import type { OperationTypes } from '../../src/http/handler.js';
import type { OperationSpec } from '../../src/http/operation.js';
import type { Reply, TestClient } from './client.js';

type Success<Op extends OperationTypes> = {
  [S in keyof Op['responses']]: S extends 200 | 201 | 202 ? Op['responses'][S] : never;
}[keyof Op['responses']];

/** A reply typed by its operation: the success envelope, or (on a 4xx/5xx) the error envelope. */
export type TypedReply<Op extends OperationTypes> = Reply<Success<Op> & Partial<ApiErrorEnvelope>>;

export interface CallInput<Op extends OperationTypes> {
  path?: Op['path'];
  query?: Record<string, string | number | boolean | string[]>;
  body?: Op['body'] | Record<string, unknown>;
  headers?: Record<string, string>;
  token?: string;
}

/**
 * Calls operations by operationId with typed input and typed replies, building the URL from the
 * generated table. Never asserts: tests assert on what it returns.
 */
export class TypedApi<Ops> {
  private readonly byId: Map<string, OperationSpec>;
  private readonly base: string;

  constructor(
    private readonly client: () => TestClient,
    api: 'client' | 'management',
    private readonly token: () => string | undefined = () => undefined,
  ) {
    const table = api === 'client' ? clientOps : managementOps;
    this.byId = new Map(table.operations.map((o) => [o.operationId, o]));
    this.base = table.basePath;
  }

  call<K extends keyof Ops & string>(operationId: K, input: Ops[K] extends OperationTypes ? CallInput<Ops[K]> : never = {} as never): Promise<Ops[K] extends OperationTypes ? TypedReply<Ops[K]> : never> {
    const op = this.byId.get(operationId);
    if (!op) throw new Error(`no operation ${operationId}`);
    const params = (input.path ?? {}) as Record<string, string>;
    let url = this.base + op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? ''));
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(input.query ?? {})) for (const item of Array.isArray(v) ? v : [v]) search.append(k, String(item));
    if ([...search].length > 0) url += `?${search}`;
    return this.client().request(url, { method: op.method, body: input.body, headers: input.headers, token: input.token ?? this.token() }) as never;
  }

  /** Calls an operation that must succeed and returns its body; throws (a fixture failure) otherwise. */
  async ok<K extends keyof Ops & string>(operationId: K, input?: Ops[K] extends OperationTypes ? CallInput<Ops[K]> : never): Promise<Ops[K] extends OperationTypes ? Success<Ops[K]> : never> {
    const reply = await this.call(operationId, input as never);
    if (reply.status >= 300) throw new Error(`${operationId} failed: ${reply.status} ${reply.text.slice(0, 300)}`);
    return reply.body as never;
  }
}

export type { ClientOperations, ManagementOperations };
