import { beforeAll, describe, expect, it } from 'vitest';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ManagementOperations } from '../helpers/typed-api.js';
import { expectError, expectFieldError, expectNotFound, uniqueName } from './identities.suite.js';
import type { Suite } from './suite.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Trace = { enabled: boolean; traceId?: string; until?: string; channels?: string[] };

/** `PUT /identities/{id}/trace` (reference model-and-policies §8.8): kept on the identity with its expiry. */
const identityTraceSuite: Suite = ({ client }) => {
  let token = '';
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => token);
  beforeAll(async () => {
    token = await client().login();
  });
  const identity = async () => (await admin.ok('createIdentity', { body: { name: uniqueName('trace'), isAdmin: false, type: 'User' } })).data!.id!;
  const trace = async (id: string) => ((await admin.ok('detailIdentity', { path: { id } })).data as unknown as { trace: Trace }).trace;

  describe('identity trace', () => {
    it('enables tracing for a duration with a new trace id and every channel, shown in the identity detail', async () => {
      const id = await identity();
      expect(await trace(id)).toEqual({ enabled: false });
      const before = Date.now();
      const reply = expectConforms(await admin.call('updateIdentityTracing', { path: { id }, body: { enabled: true, duration: '5m' } }), 'updateIdentityTracing');
      expect(reply.status).toBe(200);
      const data = reply.body.data;
      expect(data).toEqual({ enabled: true, traceId: expect.stringMatching(UUID), until: expect.any(String) });
      const until = Date.parse(data.until!);
      expect(until).toBeGreaterThanOrEqual(before + 300_000);
      expect(until).toBeLessThanOrEqual(Date.now() + 300_000);
      expect(await trace(id)).toEqual({ enabled: true, traceId: data.traceId, until: data.until, channels: ['establishPath', 'selectPath'] });
      // The list shows it too.
      const listed = await admin.ok('listIdentities', { query: { filter: `id = "${id}"` } });
      expect((listed.data[0] as unknown as { trace: Trace }).trace.traceId).toBe(data.traceId);
    });

    it('keeps a given trace id and channels; `all` means every channel; Go durations', async () => {
      const id = await identity();
      await admin.ok('updateIdentityTracing', { path: { id }, body: { enabled: true, duration: '1h30m', traceId: 'my-trace', channels: ['selectPath'] } });
      const shown = await trace(id);
      expect(shown).toMatchObject({ enabled: true, traceId: 'my-trace', channels: ['selectPath'] });
      expect(Date.parse(shown.until!) - Date.now()).toBeGreaterThan(89 * 60_000);
      await admin.ok('updateIdentityTracing', { path: { id }, body: { enabled: true, duration: '1.5s', channels: ['selectPath', 'all'] } });
      expect((await trace(id)).channels).toEqual(['establishPath', 'selectPath']);
    });

    it('ends by itself when the duration has passed', async () => {
      const id = await identity();
      await admin.ok('updateIdentityTracing', { path: { id }, body: { enabled: true, duration: '40ms' } });
      await sleep(80);
      expect(await trace(id)).toEqual({ enabled: false });
    });

    it('disables tracing', async () => {
      const id = await identity();
      await admin.ok('updateIdentityTracing', { path: { id }, body: { enabled: true, duration: '5m' } });
      const reply = expectConforms(await admin.call('updateIdentityTracing', { path: { id }, body: { enabled: false } }), 'updateIdentityTracing');
      expect(reply.body.data).toEqual({ enabled: false });
      expect(await trace(id)).toEqual({ enabled: false });
    });

    it('refuses an invalid or non-positive duration (400, field duration) and changes nothing; unknown identity 404', async () => {
      const id = await identity();
      await admin.ok('updateIdentityTracing', { path: { id }, body: { enabled: true, duration: '5m', traceId: 'kept' } });
      for (const duration of ['5x', '', '5', 'm', '-1s', '0s', '10000h', '1h m']) {
        expectFieldError(await admin.call('updateIdentityTracing', { path: { id }, body: { enabled: true, duration } }), 400, 'duration');
      }
      expectFieldError(await admin.call('updateIdentityTracing', { path: { id }, body: { enabled: true } }), 400, 'duration');
      expectFieldError(await admin.call('updateIdentityTracing', { path: { id }, body: { enabled: true, duration: 5 } }), 400, 'duration');
      expectFieldError(await admin.call('updateIdentityTracing', { path: { id }, body: { enabled: true, duration: '5m', traceId: 'x\u0000y' } }), 400, 'traceId');
      expect((await trace(id)).traceId).toBe('kept');
      expectNotFound(await admin.call('updateIdentityTracing', { path: { id: 'no-such-identity' }, body: { enabled: true, duration: '5m' } }), 'identity', 'no-such-identity');
      expectNotFound(await admin.call('updateIdentityTracing', { path: { id: 'no-such-identity' }, body: { enabled: false } }), 'identity', 'no-such-identity');
      const raw = await client().request(`/edge/management/v1/identities/${id}/trace`, { method: 'PUT', raw: '{not json', token, headers: { 'content-type': 'application/json' } });
      expectError(raw, 400, 'COULD_NOT_PARSE_BODY');
      expect((await trace(id)).traceId).toBe('kept');
    });
  });
};

export default identityTraceSuite;
