import { Hono } from 'hono';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { clientApi } from '../../../src/apis.js';
import type { Runtime } from '../../../src/deps.js';
import { ApiError } from '../../../src/errors.js';
import { errorResponse } from '../../../src/http/envelope.js';
import { registerApi } from '../../../src/http/register.js';
import { createNodeTestApp, type NodeTestApp } from '../../helpers/node-app.js';

/**
 * An operation without a handler answers 501 NOT_IMPLEMENTED in the error envelope, after its input was
 * validated. The real tables may have a handler for every operation, so the tables are registered here
 * with none.
 */
let t: NodeTestApp;
let app: Hono;
beforeAll(async () => {
  t = await createNodeTestApp();
  const runtime: Runtime = { deps: async () => t.deps, clientCertificate: () => undefined, waitUntil: () => undefined };
  app = new Hono();
  registerApi(app, { ...clientApi, handlers: {} }, runtime);
  app.onError((err) => (err instanceof ApiError ? errorResponse(err, 'test') : new Response('unexpected', { status: 500 })));
});
afterAll(() => t?.close());

test('an operation without a handler answers 501 in the envelope; bad input is still a 400', async () => {
  const reply = await app.fetch(new Request('https://localhost/edge/client/v1/enroll/erott', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: crypto.randomUUID(), clientCsr: 'x', serverCsr: 'y' }) }));
  expect(reply.status).toBe(501);
  const body = (await reply.json()) as { error: { code: string; cause: { message: string } }; meta: unknown };
  expect(body.error.code).toBe('NOT_IMPLEMENTED');
  expect(body.error.cause.message).toBe('operation enrollErOtt is not implemented');
  expect(body.meta).toEqual({ apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' });
  const bad = await app.fetch(new Request('https://localhost/edge/client/v1/authenticate?method=nope', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
  expect(bad.status).toBe(400);
});
