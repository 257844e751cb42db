import type * as z from 'zod/mini';
import * as clientOps from '../../src/generated/client-operations.js';
import * as clientResponseSchemas from '../../src/generated/client-response-schemas.js';
import * as clientSchemas from '../../src/generated/client-schemas.js';
import * as managementOps from '../../src/generated/management-operations.js';
import * as managementResponseSchemas from '../../src/generated/management-response-schemas.js';
import * as managementSchemas from '../../src/generated/management-schemas.js';
import type { OperationSpec } from '../../src/http/operation.js';

export const apis = {
  client: { base: clientOps.basePath, operations: clientOps.operations, schemas: { ...clientSchemas, ...clientResponseSchemas } as unknown as Record<string, z.ZodMiniType> },
  management: { base: managementOps.basePath, operations: managementOps.operations, schemas: { ...managementSchemas, ...managementResponseSchemas } as unknown as Record<string, z.ZodMiniType> },
};
export type ApiKey = keyof typeof apis;

export function operation(api: ApiKey, operationId: string): OperationSpec {
  const op = apis[api].operations.find((o) => o.operationId === operationId);
  if (!op) throw new Error(`no operation ${operationId} in ${api}`);
  return op;
}

/**
 * Checks a reply body against the response schema the specification names for its status.
 * Returns a list of problems (empty when it conforms).
 */
export function conformance(api: ApiKey, operationId: string, status: number, body: unknown): string[] {
  const op = operation(api, operationId);
  const name = op.responses[String(status)];
  if (name === undefined) return [`status ${status} is not declared for ${operationId}`];
  if (name === null || name === 'string') return [];
  const schema = apis[api].schemas[name];
  if (!schema) return [`no schema ${name}`];
  const result = schema.safeParse(body);
  return result.success ? [] : result.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`);
}
