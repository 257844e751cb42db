import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSessionCertificates } from '../../src/db/schema/index.js';
import { deleteExpiredSessions } from '../../src/resources/api-sessions/repo.js';
import { newCsr, pemCertificates } from '../shared/pki-helpers.js';
import { createNodeCertApp, type NodeCertApp } from '../helpers/node-cert-app.js';
import { certLoginSuite } from '../shared/cert-login.suite.js';

let t: NodeCertApp;
beforeAll(async () => {
  t = await createNodeCertApp();
});
afterAll(() => t?.close());

certLoginSuite(
  () => t.client,
  () => ({ seesChain: true, client: (chain) => t.withCertificate({ chainDer: chain.map((c) => new Uint8Array(c.rawData)) }) }),
);

describe('session certificates of ended sessions', () => {
  it('end with their session, in the same write: logout and expiry leave none behind', async () => {
    const user = await t.client.login();
    const created = await t.client.request('/edge/management/v1/identities', { token: user, body: { name: `sweep-${crypto.randomUUID().slice(0, 8)}`, isAdmin: false, type: 'User', enrollment: { ott: true } } });
    const id = created.body.data.id;
    const token = (await t.client.get(`/edge/management/v1/identities/${id}`, user)).body.data.enrollment.ott.token;
    const enrolled = await t.client.request(`/edge/client/v1/enroll?method=ott&token=${token}`, { method: 'POST', raw: (await newCsr(id)).csrPem, headers: { 'content-type': 'text/plain' } });
    const chain = pemCertificates(enrolled.body.data.cert);
    const device = t.withCertificate({ chainDer: chain.map((c) => new Uint8Array(c.rawData)) });
    const session = (await device.request('/authenticate?method=cert', { method: 'POST', body: {} })).body.data.token;
    const count = async () => (await t.deps.db.select().from(apiSessionCertificates).where(eq(apiSessionCertificates.identityId, id))).length;
    expect(await count()).toBe(1);
    expect((await t.client.request('/edge/client/v1/current-api-session', { method: 'DELETE', token: session })).status).toBe(200);
    expect(await count()).toBe(0);
    // An expired session's certificate goes with the sweep's delete.
    (await device.request('/authenticate?method=cert', { method: 'POST', body: {} })).body.data.token;
    expect(await count()).toBe(1);
    await deleteExpiredSessions(t.deps.db, Number.MAX_SAFE_INTEGER, 500);
    expect(await count()).toBe(0);
  });
});

describe('robustness', () => {
  it('no request of the suite above failed with an unexpected (500) error', () => {
    expect(t.logs.filter((l) => l.includes('unhandled'))).toEqual([]);
  });
});
