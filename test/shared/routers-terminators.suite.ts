import { beforeAll, describe, expect, it } from 'vitest';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ManagementOperations } from '../helpers/typed-api.js';
import { expectFieldError, expectNotFound, uniqueName } from './identities.suite.js';
import type { Suite } from './suite.js';

/** Transit routers (`/transit-routers`, alias `/routers`) and terminators (reference model-and-policies §9.3–§9.4). */
const routersTerminatorsSuite: Suite = ({ client }) => {
  let token = '';
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => token);
  beforeAll(async () => {
    token = await client().login();
  });
  const id = (reply: { data?: { id?: string | null } | null }) => reply.data!.id!;

  describe('transit routers', () => {
    it('creates with name, cost and noTraversal only, and serves the same record under /routers', async () => {
      const created = expectConforms(await admin.call('createTransitRouter', { body: { name: uniqueName('tr'), cost: 3, noTraversal: true, disabled: true, tags: { a: 'b' } } }), 'createTransitRouter');
      const rid = created.body.data!.id!;
      const detail = expectConforms(await admin.call('detailRouter', { path: { id: rid } }), 'detailRouter');
      expect(detail.body.data).toMatchObject({ id: rid, cost: 3, noTraversal: true, disabled: false, tags: {}, isOnline: false, isVerified: false, fingerprint: null });
      // Not enrolled: fingerprint is null, as controller v1.6.2 renders it (transit_router_test.go), on /routers and /transit-routers, list and detail.
      expect(expectConforms(await admin.call('detailTransitRouter', { path: { id: rid } }), 'detailTransitRouter').body.data.fingerprint).toBeNull();
      for (const list of [expectConforms(await admin.call('listRouters', { query: { filter: `id = "${rid}"` } }), 'listRouters'), expectConforms(await admin.call('listTransitRouters', { query: { filter: `id = "${rid}"` } }), 'listTransitRouters')]) {
        expect(list.body.data.map((r) => [r.id, r.fingerprint])).toEqual([[rid, null]]);
      }
      await admin.ok('patchRouter', { path: { id: rid }, body: { disabled: true, tags: { x: 1 } } });
      expect((await admin.ok('detailTransitRouter', { path: { id: rid } })).data).toMatchObject({ disabled: true, tags: { x: 1 } });
      expectFieldError(await admin.call('createRouter', { body: { name: detail.body.data.name } }), 400, 'name', 'name must be unique');
      await admin.ok('deleteRouter', { path: { id: rid } });
      expectNotFound(await admin.call('detailTransitRouter', { path: { id: rid } }), 'router', rid);
    });
  });

  describe('terminators', () => {
    it('creates, defaults the binding from the address, keeps the service, and goes with its service or router', async () => {
      const sid = id(await admin.ok('createService', { body: { name: uniqueName('svc'), encryptionRequired: true } }));
      const er = id(await admin.ok('createEdgeRouter', { body: { name: uniqueName('er') } }));
      const tr = id(await admin.ok('createTransitRouter', { body: { name: uniqueName('tr') } }));
      const tid = id(await admin.ok('createTerminator', { body: { service: sid, router: er, address: 'udp:10.0.0.1:53', binding: '', cost: 5, precedence: 'required' } }));
      const detail = expectConforms(await admin.call('detailTerminator', { path: { id: tid } }), 'detailTerminator');
      expect(detail.body.data).toMatchObject({ serviceId: sid, routerId: er, binding: 'udp', cost: 5, dynamicCost: 5, precedence: 'required', identity: '' });
      expect(detail.body.data.router).toMatchObject({ entity: 'transit-routers', id: er });
      await admin.ok('patchTerminator', { path: { id: tid }, body: { router: tr, service: 'other' } });
      expect((await admin.ok('detailTerminator', { path: { id: tid } })).data).toMatchObject({ routerId: tr, serviceId: sid });
      const listed = expectConforms(await admin.call('listServiceTerminators', { path: { id: sid } }), 'listServiceTerminators');
      expect(listed.body.data.map((t) => t.id)).toEqual([tid]);
      expectNotFound(await admin.call('createTerminator', { body: { service: 'nope', router: er, address: 'tcp:x:1', binding: 'transport' } }), 'service', 'nope');
      expectNotFound(await admin.call('createTerminator', { body: { service: sid, router: 'nope', address: 'tcp:x:1', binding: 'transport' } }), 'router', 'nope');
      await admin.ok('deleteTransitRouter', { path: { id: tr } });
      expectNotFound(await admin.call('detailTerminator', { path: { id: tid } }), 'terminator', tid);
      const t2 = id(await admin.ok('createTerminator', { body: { service: sid, router: er, address: 'tcp:10.0.0.1:80', binding: '' } }));
      expect((await admin.ok('detailTerminator', { path: { id: t2 } })).data.binding).toBe('transport');
      await admin.ok('deleteService', { path: { id: sid } });
      expectNotFound(await admin.call('detailTerminator', { path: { id: t2 } }), 'terminator', t2);
    });
  });
};

export default routersTerminatorsSuite;
