import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLIENT } from '../helpers/client.js';
import { observabilitySuite } from '../shared/observability.suite.js';
import { workerClient } from './helpers.js';

const client = workerClient();
observabilitySuite(() => client);

describe('request log lines on Workers', () => {
  afterEach(() => vi.restoreAllMocks());

  it('carry requestId, operationId, status, duration and the store statements timed since the previous line', async () => {
    await client.get('/health-checks'); // the isolate's dependencies are ready
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    const reply = await client.get('/health-checks');
    await client.get(`${CLIENT}/version`);
    const records = lines.map((l) => JSON.parse(l)).filter((l) => l.message === 'request');
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({ level: 'info', requestId: reply.headers.get('x-request-id'), operationId: 'health-checks', status: 200, method: 'GET' });
    // The health check ran one store statement through the timed D1 binding.
    expect(records[0].store).toMatchObject({ statements: 1, failures: 0 });
    expect(records[1]).toMatchObject({ operationId: 'listVersion', status: 200 });
    expect(records[1].store).toBeUndefined();
  });
});
