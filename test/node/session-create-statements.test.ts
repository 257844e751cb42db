/**
 * `POST /sessions` runs at most three statements with one write (issue target; ADR 0009, "Cost"), also
 * where posture checks exist: the probe reads what posture evaluation needs and rides on the session
 * check (`probeRider`), so a new session is that one read and the insert, a re-create the read alone, and
 * a refusal for posture the read and the failed-request record. A body the rider cannot use (no
 * `serviceId`) is refused after the session check, as before. The client's `GET /services` rides on the
 * session check too (`servicesRider`): a page made afresh is the session read, the page and (under posture
 * checks) its policies' checks; a kept page (ADR 0015) the session read alone.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identities } from '../../src/db/schema/index.js';
import { CLIENT, MGMT } from '../helpers/client.js';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';
import { storeFixtures, unique } from '../shared/auth-fixtures.js';

const PASSWORD = 'session-statements-password-1';

describe('POST /sessions under posture checks', () => {
  let t: NodeTestApp;
  let admin: string;
  /** Single statements sent to the store (batches are counted apart). */
  const single: string[] = [];
  let batches = 0;

  beforeAll(async () => {
    t = await createNodeTestApp({}, { store: 'libsql' });
    const execute = t.libsql!.execute.bind(t.libsql) as (stmt: unknown) => Promise<unknown>;
    (t.libsql as { execute: unknown }).execute = (stmt: string | { sql: string }) => {
      single.push(typeof stmt === 'string' ? stmt : stmt.sql);
      return execute(stmt);
    };
    const batch = t.libsql!.batch.bind(t.libsql) as (...args: unknown[]) => Promise<unknown>;
    (t.libsql as { batch: unknown }).batch = (...args: unknown[]) => {
      batches++;
      return batch(...args);
    };
    admin = await t.client.login();
  });
  afterAll(() => t?.close());

  async function created(path: string, body: unknown): Promise<string> {
    const reply = await t.client.request(`${MGMT}/${path}`, { token: admin, body });
    expect(reply.status).toBe(201);
    return reply.body.data.id as string;
  }

  /** A new identity logged in with a password, and a new service (no policy yet). */
  async function userWithService(prefix: string) {
    const username = unique(prefix);
    const { identityId } = await storeFixtures(t.deps.db).createUser({ username, password: PASSWORD });
    const login = await t.client.request(`${CLIENT}/authenticate?method=password`, { body: { username, password: PASSWORD } });
    const serviceId = await created('services', { name: unique('svc'), encryptionRequired: true });
    return { identityId, token: login.body.data.token as string, serviceId };
  }

  async function measured(token: string, serviceId: string) {
    single.length = 0;
    batches = 0;
    const reply = await t.client.request(`${CLIENT}/sessions`, { token, body: { serviceId, type: 'Dial' } });
    // The session check is the first statement of every authenticated request; the probe rides on it.
    expect(single[0]).toMatch(/"api_sessions"\."token_hash" = \?/);
    expect(single[0]).toMatch(/json_group_array\(json_array\(zg\.policy_id/);
    return { reply, statements: single.length - 1, batches };
  }

  it('creates with the probe and the insert, re-creates with the probe, refuses for posture with the probe and the record', async () => {
    const { identityId, token, serviceId } = await userWithService('ps');
    const routerId = await created('edge-routers', { name: unique('er') });
    await created('edge-router-policies', { name: unique('erp'), semantic: 'AnyOf', identityRoles: [`@${identityId}`], edgeRouterRoles: [`@${routerId}`] });
    await created('service-edge-router-policies', { name: unique('serp'), semantic: 'AnyOf', serviceRoles: [`@${serviceId}`], edgeRouterRoles: [`@${routerId}`] });
    const checkId = await created('posture-checks', { name: unique('pc'), typeId: 'DOMAIN', domains: ['corp.example'] });
    // Only a policy whose check fails grants the service: refused for posture.
    const failing = await created('service-policies', { name: unique('sp'), type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${identityId}`], serviceRoles: [`@${serviceId}`], postureCheckRoles: [`@${checkId}`] });
    const refused = await measured(token, serviceId);
    expect(refused.reply.status).toBe(409);
    expect(refused.reply.body.error.code).toBe('INVALID_POSTURE');
    expect(Object.keys(refused.reply.body.error.cause.data)).toEqual([failing]);
    expect(refused.statements).toBe(0);
    expect(refused.batches).toBe(1);

    // A second policy without checks grants it too: created, with the passing policy alone recorded.
    const passing = await created('service-policies', { name: unique('sp'), type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${identityId}`], serviceRoles: [`@${serviceId}`] });
    const first = await measured(token, serviceId);
    expect(first.reply.status).toBe(201);
    expect(first.statements).toBe(1);
    expect(first.batches).toBe(0);
    const detail = await t.client.get(`${MGMT}/sessions/${first.reply.body.data.id}`, admin);
    expect(detail.body.data.servicePolicies.map((p: { id: string }) => p.id)).toEqual([passing]);

    const again = await measured(token, serviceId);
    expect(again.reply.status).toBe(201);
    expect(again.reply.body.data.id).toBe(first.reply.body.data.id);
    expect(again.statements).toBe(0);

    // Another type than the body's default, and a body without a service: the same answers as without a rider.
    const bind = await t.client.request(`${CLIENT}/sessions`, { token, body: { serviceId, type: 'Bind' } });
    expect(bind.status).toBe(400);
    const missing = await t.client.request(`${CLIENT}/sessions`, { token, body: { type: 'Dial' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.cause.field).toBe('serviceId');
    // Anonymous with a bad body: 401 first, whatever the body.
    const anonymous = await t.client.request(`${CLIENT}/sessions`, { body: { type: 'Sideways' } });
    expect(anonymous.status).toBe(401);
    const badToken = await t.client.request(`${CLIENT}/sessions`, { token: crypto.randomUUID(), body: '{not json' });
    expect(badToken.status).toBe(401);
  });

  it('lists the services of GET /services with the session read, the page and its checks; a kept page with the session read alone', async () => {
    const { identityId, token, serviceId } = await userWithService('ls');
    const checkId = await created('posture-checks', { name: unique('pc'), typeId: 'DOMAIN', domains: ['corp.example'] });
    const policyId = await created('service-policies', { name: unique('sp'), type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${identityId}`], serviceRoles: [`@${serviceId}`], postureCheckRoles: [`@${checkId}`] });
    const expectPage = (reply: { status: number; body: any }) => {
      expect(reply.status).toBe(200);
      expect(reply.body.meta.pagination.totalCount).toBe(1);
      expect(reply.body.data.map((s: { id: string }) => s.id)).toEqual([serviceId]);
      expect(reply.body.data[0].permissions).toEqual(['Dial']);
      expect(reply.body.data[0].postureQueries).toMatchObject([{ policyId, policyType: 'Dial', isPassing: false, postureQueries: [{ id: checkId, queryType: 'DOMAIN', isPassing: false }] }]);
    };
    // The first listing counts and keeps the identity's total; the next ones find it kept. The identity's
    // list has just changed, so its page is made afresh each time.
    expect((await t.client.get(`${CLIENT}/services`, token)).status).toBe(200);
    single.length = 0;
    expectPage(await t.client.get(`${CLIENT}/services`, token));
    expect(single).toHaveLength(3);
    expect(single[0]).toMatch(/"api_sessions"\."token_hash" = \?/);
    // Its last change a minute back: the page is kept once made, then answered from the session read.
    await t.deps.db.update(identities).set({ servicesChangedAt: sql`${identities.servicesChangedAt} - 60000` }).where(eq(identities.id, identityId));
    expectPage(await t.client.get(`${CLIENT}/services`, token));
    single.length = 0;
    expectPage(await t.client.get(`${CLIENT}/services`, token));
    expect(single).toHaveLength(1);
    expect(single[0]).toMatch(/"api_sessions"\."token_hash" = \?/);
  });
});
