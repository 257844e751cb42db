/**
 * The worker reads through D1's Sessions API (src/worker.ts). Miniflare's local D1 has no replicas, so
 * this checks what one isolate guarantees: a token works on the very next request, and a logout is seen
 * by the next request of the same isolate (the session's bookmark moves with its writes). The replica
 * fallback itself is tested on Node with a real lagging copy (test/node/read-replica.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { CLIENT } from '../helpers/client.js';
import { workerClient } from './helpers.js';

describe('reads through the D1 Sessions API', () => {
  it('accepts a token right after login and refuses it right after logout', async () => {
    const client = workerClient();
    for (let i = 0; i < 5; i++) {
      const token = await client.login();
      expect((await client.get(`${CLIENT}/current-api-session`, token)).status).toBe(200);
      expect((await client.request(`${CLIENT}/current-api-session`, { method: 'DELETE', token })).status).toBe(200);
      expect((await client.get(`${CLIENT}/current-api-session`, token)).status).toBe(401);
    }
  });
});
