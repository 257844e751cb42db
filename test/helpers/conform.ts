import { expect } from 'vitest';
import type { Reply } from './client.js';
import { conformance, type ApiKey } from './spec-schemas.js';

/**
 * Asserts that a 2xx reply of an operation validates against the zod schema the specification names in
 * that operation's `responses` for the reply's status (src/generated/<api>-schemas.ts), and returns it.
 */
export function expectConforms<T extends Reply>(reply: T, operationId: string, api: ApiKey = 'management'): T {
  expect(reply.status, `${operationId}: ${reply.text.slice(0, 300)}`).toBeGreaterThanOrEqual(200);
  expect(reply.status, `${operationId}: ${reply.text.slice(0, 300)}`).toBeLessThan(300);
  expect(conformance(api, operationId, reply.status, reply.body), `${operationId} ${reply.status} body does not conform`).toEqual([]);
  return reply;
}
