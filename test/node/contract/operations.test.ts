import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeTestApp, type NodeTestApp } from '../../helpers/node-app.js';
import { apis, conformance, type ApiKey } from '../../helpers/spec-schemas.js';

/**
 * Walks every operation of both specifications as the default admin with empty or minimal input:
 * nothing may answer 500, every answer is an envelope, and every 2xx body conforms to the spec.
 */
let t: NodeTestApp;
let token: string;
beforeAll(async () => {
  t = await createNodeTestApp();
  token = await t.client.login();
});
afterAll(() => t?.close());

const destructive = new Set(['deleteCurrentApiSession']);

describe.each(Object.keys(apis) as ApiKey[])('%s API operations', (api) => {
  const { base, operations } = apis[api];
  it.each(operations.filter((o) => !destructive.has(o.operationId)).map((o) => [o.operationId, o] as const))('%s answers an envelope, never a 500', async (_id, op) => {
    const path = base + op.path.replace(/\{[^}]+\}/g, 'does-not-exist');
    const query = op.params.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${encodeURIComponent(String(p.enum?.[0] ?? 'x'))}`);
    const url = query.length ? `${path}?${query.join('&')}` : path;
    const hasBody = op.params.some((p) => p.in === 'body') && op.method !== 'GET';
    const reply = await t.client.request(url, { method: op.method, token, ...(hasBody ? { body: {} } : {}) });
    expect(reply.status, `${op.method} ${url}: ${reply.text.slice(0, 300)}`).not.toBe(500);
    if (reply.status >= 400) {
      expect(reply.body.error?.code, reply.text.slice(0, 200)).toBeTruthy();
    } else if ((reply.headers.get('content-type') ?? '').includes('json')) {
      expect(conformance(api, op.operationId, reply.status, reply.body), `${op.operationId} ${reply.status}`).toEqual([]);
    }
  });
});
