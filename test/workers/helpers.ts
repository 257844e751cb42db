import { exports } from 'cloudflare:workers';
import { TestClient } from '../helpers/client.js';

/** A client that sends requests to the real worker (its default export) inside workerd. */
export function workerClient(): TestClient {
  return new TestClient((request) => (exports as any).default.fetch(request));
}
