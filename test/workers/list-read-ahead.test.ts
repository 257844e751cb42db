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
