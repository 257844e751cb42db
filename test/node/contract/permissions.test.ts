import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessFor, type Access } from '../../../src/http/access.js';
import type { OperationSpec } from '../../../src/http/operation.js';
import type { Reply } from '../../helpers/client.js';
import { createNodeTestApp, type NodeTestApp } from '../../helpers/node-app.js';
import { apis, type ApiKey } from '../../helpers/spec-schemas.js';
import { storeFixtures, unique } from '../../shared/auth-fixtures.js';

/**
 * The permission model, walked over every routed operation of both specifications (reference
 * auth-and-pki §1.2, model-and-policies §2.10). The expected access level of each operation is derived
 * here from the reference's own wording, independently of src/http/access.ts, and then checked both
 * against access.ts and against what the running app answers to each kind of caller.
 */

/** Reference §1.2: what a partially authenticated session may do (by method and path). */
const PARTIAL = new Set([
  'POST /authenticate/mfa',
  'GET /current-api-session',
  'DELETE /current-api-session',
  'GET /current-identity/mfa',
  'POST /current-identity/mfa',
  'GET /current-identity/mfa/qr-code',
  'POST /current-identity/mfa/verify',
]);

/** Reference §2.10: management paths any authenticated identity may use. */
const MANAGEMENT_SELF_SERVICE = ['/authenticate', '/current-api-session', '/current-identity', '/sessions'];

/** Reference §1.2: the anonymous operations (the specification declares them without security). */
const ANONYMOUS = {
  client: ['/', '/version', '/authenticate', '/enroll*', '/.well-known/est/cacerts', '/network-jwts', '/external-jwt-signers', '/enumerated-capabilities', '/specs*', '/protocols'],
  management: ['/', '/version', '/authenticate', '/.well-known/est/cacerts', '/network-jwts', '/enumerated-capabilities', '/specs*'],
};

/** Operations whose own credential is a client certificate: they may answer 401 for that reason alone. */
const OWN_CREDENTIAL_401 = new Set(['extendRouterEnrollment', 'extendCurrentIdentityAuthenticator']);

/** Operations that would end the caller's session: checked separately at the end. */
const DESTRUCTIVE = new Set(['deleteCurrentApiSession']);

function matches(patterns: string[], path: string): boolean {
  return patterns.some((p) => (p.endsWith('*') ? path === p.slice(0, -1) || path.startsWith(p.slice(0, -1) + '/') : path === p));
}

function expectedAccess(api: ApiKey, op: OperationSpec): Access {
  if (matches(ANONYMOUS[api], op.path)) return 'anonymous';
  if (PARTIAL.has(`${op.method} ${op.path}`)) return 'partial';
  if (api === 'management') return MANAGEMENT_SELF_SERVICE.some((p) => op.path === p || op.path.startsWith(p + '/')) ? 'authenticated' : 'admin';
  // The client specification's service mutations are never an end user's to call.
  if (op.path === '/services/{id}' && op.method !== 'GET') return 'admin';
  return 'authenticated';
}

let t: NodeTestApp;
const tokens = {} as Record<'admin' | 'user' | 'partialUser' | 'partialAdmin', string>;

async function loginAs(username: string, password: string): Promise<string> {
  const reply = await t.client.request(`/edge/client/v1/authenticate?method=password`, { body: { username, password } });
  if (reply.status !== 200) throw new Error(`login failed: ${reply.text}`);
  return reply.body.data.token;
}

beforeAll(async () => {
  t = await createNodeTestApp();
  const fx = storeFixtures(t.deps.db);
  const totp = await fx.createAuthPolicy({ requireTotp: true });
  const accounts = {
    user: { username: unique('user'), password: 'user-password' },
    partialUser: { username: unique('partial'), password: 'user-password', authPolicyId: totp },
    partialAdmin: { username: unique('padmin'), password: 'user-password', authPolicyId: totp, isAdmin: true },
  };
  for (const [key, account] of Object.entries(accounts)) {
    await fx.createUser(account);
    tokens[key as keyof typeof accounts] = await loginAs(account.username, account.password);
  }
  tokens.admin = await t.client.login();
});
afterAll(() => t?.close());

function call(api: ApiKey, op: OperationSpec, token?: string): Promise<Reply> {
  const { base } = apis[api];
  const path = base + op.path.replace(/\{[^}]+\}/g, 'does-not-exist');
  const query = op.params.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${encodeURIComponent(String(p.enum?.[0] ?? 'x'))}`);
  const url = query.length ? `${path}?${query.join('&')}` : path;
  const hasBody = op.params.some((p) => p.in === 'body') && op.method !== 'GET';
  return t.client.request(url, { method: op.method, token, ...(hasBody ? { body: {} } : {}) });
}

function expectRefused(reply: Reply, what: string) {
  expect(reply.status, `${what}: ${reply.text.slice(0, 200)}`).toBe(401);
  expect(reply.body.error.code, what).toBe('UNAUTHORIZED');
}

function expectAdmitted(reply: Reply, what: string) {
  expect(reply.status, `${what}: ${reply.text.slice(0, 200)}`).not.toBe(401);
  expect(reply.status, what).not.toBe(500);
}

describe('the operation tables', () => {
  it('route 253 operations: 57 client and 196 management', () => {
    expect(apis.client.operations).toHaveLength(57);
    expect(apis.management.operations).toHaveLength(196);
  });

  it.each(['client', 'management'] as ApiKey[])('%s: the specification marks exactly the reference\'s anonymous operations, and access.ts agrees with the reference everywhere', (api) => {
    for (const op of apis[api].operations) {
      expect(op.anonymous, `${op.method} ${op.path}`).toBe(matches(ANONYMOUS[api], op.path));
      expect(accessFor(api, op), `${api} ${op.operationId}`).toBe(expectedAccess(api, op));
    }
  });
});

describe.each(['client', 'management'] as ApiKey[])('%s API permissions', (api) => {
  const ops = apis[api].operations;
  const byAccess = (...levels: Access[]) => ops.filter((op) => levels.includes(expectedAccess(api, op))).map((op) => [op.operationId, op] as const);

  it.each(byAccess('partial', 'authenticated', 'admin'))('%s refuses anonymous callers and unknown or garbage tokens', async (id, op) => {
    const anonymous = await call(api, op);
    expectRefused(anonymous, `${id} anonymous`);
    expect(anonymous.body.error.cause).toEqual({ code: 'UNHANDLED', message: 'unauthenticated for invalid credentials' });
    expectRefused(await call(api, op, 'garbage'), `${id} garbage token`);
    expectRefused(await call(api, op, crypto.randomUUID()), `${id} unknown token`);
  });

  it.each(byAccess('admin'))('%s refuses a logged-in non-admin and a partially authenticated admin', async (id, op) => {
    expectRefused(await call(api, op, tokens.user), `${id} non-admin`);
    expectRefused(await call(api, op, tokens.partialAdmin), `${id} partial admin`);
    expectAdmitted(await call(api, op, tokens.admin), `${id} admin`);
  });

  it.each(byAccess('authenticated').filter(([id]) => !DESTRUCTIVE.has(id)))('%s admits any fully authenticated identity, not a partial session', async (id, op) => {
    expectRefused(await call(api, op, tokens.partialUser), `${id} partial`);
    expectRefused(await call(api, op, tokens.partialAdmin), `${id} partial admin`);
    if (!OWN_CREDENTIAL_401.has(id)) expectAdmitted(await call(api, op, tokens.user), `${id} non-admin`);
  });

  it.each(byAccess('partial').filter(([id]) => !DESTRUCTIVE.has(id)))('%s admits a partially authenticated session', async (id, op) => {
    expectAdmitted(await call(api, op, tokens.partialUser), `${id} partial`);
    expectAdmitted(await call(api, op, tokens.user), `${id} full`);
  });

  it.each(byAccess('anonymous'))('%s never answers 401 UNAUTHORIZED for want of a session', async (id, op) => {
    for (const token of [undefined, 'garbage', crypto.randomUUID()]) {
      const reply = await call(api, op, token);
      if (OWN_CREDENTIAL_401.has(id)) expect(reply.status).not.toBe(500);
      else expectAdmitted(reply, `${id} with ${token ?? 'no token'}`);
    }
  });
});

describe('logout', () => {
  it('is allowed while partially authenticated, on both APIs, and ends the session', async () => {
    const fx = storeFixtures(t.deps.db);
    const account = { username: unique('bye'), password: 'user-password' };
    await fx.createUser({ ...account, authPolicyId: await fx.createAuthPolicy({ requireTotp: true }) });
    for (const api of ['client', 'management'] as ApiKey[]) {
      const op = apis[api].operations.find((o) => o.operationId === 'deleteCurrentApiSession')!;
      const token = await loginAs(account.username, account.password);
      const reply = await call(api, op, token);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ data: {}, meta: {} });
      expectRefused(await call(api, op, token), `${api} after logout`);
    }
  });
});
