import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../src/worker.js';
import { TestClient } from '../helpers/client.js';

/**
 * Sends a request to the real worker inside workerd: its default export's `fetch`, with the test
 * environment's bindings and an execution context (`waitUntil` work goes on after the response, as on
 * the platform). Called directly rather than through the `exports.default` loopback, which makes every
 * request slower than the one before it in the same file (each one wraps the entrypoint's prototype in
 * one more proxy), until the stack overflows after some two thousand requests.
 */
export function callWorker(request: Request): Promise<Response> {
  return Promise.resolve(worker.fetch(request, env as never, createExecutionContext()));
}

/** A client that sends requests to the real worker inside workerd. */
export function workerClient(): TestClient {
  return new TestClient(callWorker);
}
