/**
 * On D1 the admin identity list is one round trip: its page goes in the same batch as the session check
 * (docs/adr/0016-list-read-ahead.md). Counted by the timed D1 binding the request log reports.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { workerClient } from './helpers.js';

const client = workerClient();
const MGMT = '/edge/management/v1';

/** The store calls the request log line of one request reports. */
async function storeCallsOf(send: () => Promise<unknown>): Promise<{ statements: number } | undefined> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
  await send();
  spy.mockRestore();
  const records = lines.map((l) => JSON.parse(l)).filter((l) => l.message === 'request');
  expect(records).toHaveLength(1);
  return records[0].store;
}

describe('the identity list on D1', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is one store call with the session check; a list not read ahead is two', async () => {
    const token = await client.login();
    const list = `${MGMT}/identities?filter=${encodeURIComponent('name contains "a"')}&sort=${encodeURIComponent('name asc')}&limit=25`;
    await client.request(list, { token }); // the statements are prepared, the total kept
    expect(await storeCallsOf(async () => expect((await client.request(list, { token })).status).toBe(200))).toMatchObject({ statements: 1, failures: 0 });
    const other = await storeCallsOf(async () => expect((await client.request(`${MGMT}/auth-policies`, { token })).status).toBe(200));
    expect(other!.statements).toBeGreaterThanOrEqual(2);
  });

  it('an unknown token: the batch, then the session check alone on the primary (a replica may lag), no page read again', async () => {
    const list = `${MGMT}/identities?limit=25`;
    expect(await storeCallsOf(async () => expect((await client.request(list, { token: crypto.randomUUID() })).status).toBe(401))).toMatchObject({ statements: 2 });
  });
});

describe("an identity's services on D1", () => {
  it('a kept page is one store call: what decides it is read with the session check', async () => {
    const token = await client.login();
    const call = (path: string, body?: unknown) => client.request(`${MGMT}${path}`, { token, ...(body ? { body } : {}) });
    const attr = `ra-${crypto.randomUUID().slice(0, 8)}`;
    const identity = await call('/identities', { name: `${attr}-identity`, isAdmin: false, type: 'User', roleAttributes: [attr] });
    const service = await call('/services', { name: `${attr}-service`, encryptionRequired: true, roleAttributes: [attr] });
    expect((await call('/service-policies', { name: `${attr}-dial`, type: 'Dial', semantic: 'AnyOf', identityRoles: [`#${attr}`], serviceRoles: [`#${attr}`] })).status).toBe(201);
    expect([identity.status, service.status]).toEqual([201, 201]);
    const path = `/identities/${identity.body.data.id}/services`;
    // A page is kept once the identity's service-list stamp is settled (docs/adr/0015-kept-service-pages.md).
    await new Promise((r) => setTimeout(r, 2_100));
    const first = await call(path);
    expect(first.status).toBe(200);
    expect(first.body.data.map((s: { id: string }) => s.id)).toEqual([service.body.data.id]);
    let again: { status: number; body: { data: { id: string }[] } } | undefined;
    expect(await storeCallsOf(async () => void (again = await call(path)))).toMatchObject({ statements: 1, failures: 0 });
    expect(again!.status).toBe(200);
    expect(again!.body).toEqual(first.body);
    // Another caller's token reads no view and gets no page.
    expect((await client.request(`${MGMT}${path}`, { token: crypto.randomUUID() })).status).toBe(401);
  });
});
