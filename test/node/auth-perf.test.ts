import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, ADMIN_USERNAME, CLIENT } from '../helpers/client.js';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';

/**
 * Rough figures for password logins and session reads, in-process against a libSQL file (no TLS, no
 * network). Skipped unless AUTH_PERF=1: `AUTH_PERF=1 npx vitest run --project node test/node/auth-perf.test.ts`.
 * The benchmark harness in bench/ measures the same paths over HTTP with a floor for comparison.
 */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

describe.skipIf(!process.env.AUTH_PERF)('authentication performance (Node, in-process)', () => {
  let t: NodeTestApp;
  beforeAll(async () => {
    t = await createNodeTestApp();
  });
  afterAll(() => t?.close());

  const body = { username: ADMIN_USERNAME, password: ADMIN_PASSWORD };

  it('password logins per second', async () => {
    for (const concurrency of [1, 4, 16]) {
      let done = 0;
      const until = performance.now() + 4000;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (performance.now() < until) {
            const reply = await t.client.request(`${CLIENT}/authenticate?method=password`, { body });
            expect(reply.status).toBe(200);
            done++;
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      console.log(`password logins, concurrency ${concurrency}: ${(done / seconds).toFixed(1)}/s (${done} in ${seconds.toFixed(1)} s)`);
    }
  }, 60_000);

  it('GET /current-api-session and GET /current-identity latency', async () => {
    const token = await t.client.login();
    for (const path of ['/current-api-session', '/current-identity']) {
      for (let i = 0; i < 200; i++) await t.client.get(`${CLIENT}${path}`, token);
      const samples: number[] = [];
      for (let i = 0; i < 3000; i++) {
        const start = performance.now();
        const reply = await t.client.get(`${CLIENT}${path}`, token);
        samples.push(performance.now() - start);
        expect(reply.status).toBe(200);
      }
      samples.sort((a, b) => a - b);
      const total = samples.reduce((a, b) => a + b, 0);
      console.log(
        `GET ${path}: p50 ${percentile(samples, 50).toFixed(3)} ms, p95 ${percentile(samples, 95).toFixed(3)} ms, p99 ${percentile(samples, 99).toFixed(3)} ms, ${(samples.length / (total / 1000)).toFixed(0)} req/s sequential`,
      );
    }
  }, 60_000);
});
