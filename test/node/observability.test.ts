import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';
import { observabilitySuite } from '../shared/observability.suite.js';
import { CLIENT, MGMT, ADMIN_PASSWORD, ADMIN_USERNAME } from '../helpers/client.js';

let t: NodeTestApp;
beforeAll(async () => {
  t = await createNodeTestApp();
});
afterAll(() => t?.close());

observabilitySuite(() => t.client);

describe('request log lines', () => {
  it('writes one line per request with requestId, operationId, status and duration, and never the query string', async () => {
    t.logs.length = 0;
    const reply = await t.client.get(`${CLIENT}/version?secret-looking=abc123`);
    const lines = t.logs.map((l) => JSON.parse(l)).filter((l) => l.m === 'request');
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({ requestId: reply.headers.get('x-request-id'), method: 'GET', path: `${CLIENT}/version`, operationId: 'listVersion', status: 200 });
    expect(typeof line.durationMs).toBe('number');
    expect(t.logs.join('\n')).not.toContain('abc123');
  });

  it('names logins by method and outcome, without the password', async () => {
    t.logs.length = 0;
    await t.client.request(`${MGMT}/authenticate?method=password`, { body: { username: ADMIN_USERNAME, password: 'wrong-password-xyz' } });
    await t.client.login();
    const logins = t.logs.map((l) => JSON.parse(l)).filter((l) => l.m === 'request' && l.operationId === 'authenticate');
    expect(logins.map((l) => l.login)).toEqual([
      { method: 'password', outcome: 'failure' },
      { method: 'password', outcome: 'success' },
    ]);
    expect(t.logs.join('\n')).not.toContain('wrong-password-xyz');
    expect(t.logs.join('\n')).not.toContain(ADMIN_PASSWORD);
  });

  it('names the swagger.json documents "swagger.json"', async () => {
    t.logs.length = 0;
    await t.client.get(`${CLIENT}/swagger.json`);
    await t.client.get(`${MGMT}/swagger.json`);
    const lines = t.logs.map((l) => JSON.parse(l)).filter((l) => l.m === 'request');
    expect(lines.map((l) => [l.path, l.operationId, l.status])).toEqual([
      [`${CLIENT}/swagger.json`, 'swagger.json', 200],
      [`${MGMT}/swagger.json`, 'swagger.json', 200],
    ]);
  });

  it('names unrouted requests "unmatched"', async () => {
    t.logs.length = 0;
    await t.client.get('/edge/nowhere');
    const [line] = t.logs.map((l) => JSON.parse(l)).filter((l) => l.m === 'request');
    expect(line).toMatchObject({ operationId: 'unmatched', status: 404 });
  });
});

describe('an unreachable store', () => {
  it('makes /health-checks answer 503 with the failing check, and logs why without sending it', async () => {
    const broken = await createNodeTestApp();
    broken.libsql!.close();
    const first = await broken.client.get('/health-checks');
    const second = await broken.client.get('/health-checks');
    broken.close();
    expect(first.status).toBe(503);
    expect(first.body.data.healthy).toBe(false);
    const check = second.body.data.checks[0];
    expect(check).toMatchObject({ id: 'store.read', healthy: false, err: 'the store did not answer' });
    expect(check.consecutiveFailures).toBeGreaterThanOrEqual(2);
    expect(check.failingSince).toMatch(/Z$/);
    const warned = broken.logs.map((l) => JSON.parse(l)).filter((l) => l.m === 'health check failed');
    expect(warned.length).toBeGreaterThanOrEqual(2);
    expect(typeof warned[0].error).toBe('string');
    // A later success clears the failure history (module state is per process).
    const ok = await t.client.get('/health-checks');
    expect(ok.body.data.checks[0]).not.toHaveProperty('failingSince');
  });
});
