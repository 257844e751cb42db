import { beforeAll, describe, expect, it } from 'vitest';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ManagementOperations } from '../helpers/typed-api.js';
import { expectError, expectFieldError, expectNotFound, uniqueName } from './identities.suite.js';
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

  describe('every router under /transit-routers', () => {
    it('lists and shows an edge router as a router of another kind: verified, no enrollment, filtered and sorted with the others', async () => {
      const prefix = uniqueName('mixed');
      const er = id(await admin.ok('createEdgeRouter', { body: { name: `${prefix}-a-edge`, cost: 7, roleAttributes: ['x'] } }));
      const tr = id(await admin.ok('createTransitRouter', { body: { name: `${prefix}-b-transit` } }));
      const query = { filter: `name contains "${prefix}"`, sort: 'name desc' };
      for (const list of [expectConforms(await admin.call('listTransitRouters', { query }), 'listTransitRouters').body, expectConforms(await admin.call('listRouters', { query }), 'listRouters').body]) {
        expect(list.data.map((r) => r.id)).toEqual([tr, er]);
        expect(list.meta.pagination!.totalCount).toBe(2);
        expect(list.data[1]).toMatchObject({ name: `${prefix}-a-edge`, cost: 7, isVerified: true, isOnline: false, fingerprint: null, enrollmentToken: null, enrollmentJwt: null });
        expect(list.data[0]).toMatchObject({ isVerified: false });
        expect(list.data[0].enrollmentJwt).toEqual(expect.any(String));
      }
      // Filters see the edge router's own columns.
      const costly = await admin.ok('listTransitRouters', { query: { filter: `name contains "${prefix}" and cost = 7` } });
      expect(costly.data.map((r) => r.id)).toEqual([er]);
      const detail = expectConforms(await admin.call('detailTransitRouter', { path: { id: er } }), 'detailTransitRouter');
      expect(detail.body.data).toMatchObject({ id: er, name: `${prefix}-a-edge`, isVerified: true, _links: { self: { href: `./transit-routers/${er}` } } });
      // GET /edge-routers still lists edge routers only.
      expect((await admin.ok('listEdgeRouters', { query: { filter: `name contains "${prefix}"` } })).data.map((r) => r.id)).toEqual([er]);
    });

    it("follows a terminator's router link to an edge router", async () => {
      const sid = id(await admin.ok('createService', { body: { name: uniqueName('svc'), encryptionRequired: true } }));
      const er = id(await admin.ok('createEdgeRouter', { body: { name: uniqueName('er') } }));
      const tid = id(await admin.ok('createTerminator', { body: { service: sid, router: er, address: 'tcp:10.0.0.1:80', binding: '' } }));
      const router = (await admin.ok('detailTerminator', { path: { id: tid } })).data.router;
      expect(router).toMatchObject({ entity: 'transit-routers', id: er });
      expect((await admin.ok('detailRouter', { path: { id: er } })).data.name).toBe(router.name);
    });

    it('refuses to update an edge router there (409) and changes nothing; deleting it there deletes the edge router', async () => {
      const name = uniqueName('er');
      const er = id(await admin.ok('createEdgeRouter', { body: { name, cost: 2 } }));
      for (const [op, body] of [
        ['updateTransitRouter', { name: 'renamed' }],
        ['patchTransitRouter', { cost: 9 }],
        ['updateRouter', { name: 'renamed' }],
        ['patchRouter', { cost: 9 }],
      ] as const) {
        expectError(await admin.call(op, { path: { id: er }, body }), 409, 'CAN_NOT_UPDATE_ROUTER');
      }
      expect((await admin.ok('detailEdgeRouter', { path: { id: er } })).data).toMatchObject({ name, cost: 2 });
      expectNotFound(await admin.call('patchTransitRouter', { path: { id: 'nope' }, body: { cost: 1 } }), 'router', 'nope');
      await admin.ok('deleteTransitRouter', { path: { id: er } });
      expectNotFound(await admin.call('detailEdgeRouter', { path: { id: er } }), 'edgeRouter', er);
      expectNotFound(await admin.call('deleteRouter', { path: { id: er } }), 'router', er);
    });

    it('keeps a name unique across edge and transit routers, on create and on rename', async () => {
      const edgeName = uniqueName('er');
      const transitName = uniqueName('tr');
      const er = id(await admin.ok('createEdgeRouter', { body: { name: edgeName } }));
      const tr = id(await admin.ok('createTransitRouter', { body: { name: transitName } }));
      expectFieldError(await admin.call('createTransitRouter', { body: { name: edgeName } }), 400, 'name', 'name must be unique');
      expectFieldError(await admin.call('createEdgeRouter', { body: { name: transitName } }), 400, 'name', 'name must be unique');
      expectFieldError(await admin.call('patchTransitRouter', { path: { id: tr }, body: { name: edgeName } }), 400, 'name', 'name must be unique');
      expectFieldError(await admin.call('patchEdgeRouter', { path: { id: er }, body: { name: transitName } }), 400, 'name', 'name must be unique');
      // Renaming to its own name, or to a free one, is fine.
      await admin.ok('patchTransitRouter', { path: { id: tr }, body: { name: transitName } });
      await admin.ok('patchEdgeRouter', { path: { id: er }, body: { name: `${edgeName}-2` } });
      expect((await admin.ok('listRouters', { query: { filter: `name = "${edgeName}" or name = "${transitName}"` } })).data.map((r) => r.id)).toEqual([tr]);
    });

    it('lets exactly one of 50 concurrent creates of one name win, across both kinds', async () => {
      const name = uniqueName('race');
      const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? admin.call('createEdgeRouter', { body: { name } }) : admin.call('createTransitRouter', { body: { name } }))));
      expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
      for (const r of replies.filter((r) => r.status !== 201)) expectFieldError(r, 400, 'name', 'name must be unique');
      expect((await admin.ok('listRouters', { query: { filter: `name = "${name}"` } })).meta.pagination!.totalCount).toBe(1);
    });
  });

  describe('terminators', () => {
    it("filters on the controller's terminator symbols: instanceId, service.name, router.name across both router kinds; cost and precedence are not public", async () => {
      const svcName = uniqueName('svc');
      const sid = id(await admin.ok('createService', { body: { name: svcName, encryptionRequired: true } }));
      const erName = uniqueName('er');
      const trName = uniqueName('tr');
      const er = id(await admin.ok('createEdgeRouter', { body: { name: erName } }));
      const tr = id(await admin.ok('createTransitRouter', { body: { name: trName } }));
      const onEdge = id(await admin.ok('createTerminator', { body: { service: sid, router: er, address: 'tcp:10.0.0.1:80', binding: 'transport', identity: 'inst-1', cost: 4 } }));
      const onTransit = id(await admin.ok('createTerminator', { body: { service: sid, router: tr, address: 'tcp:10.0.0.2:80', binding: 'transport' } }));
      const ids = async (filter: string) => (await admin.ok('listTerminators', { query: { filter, sort: 'address' } })).data.map((t) => t.id);
      expect(await ids(`service.name = "${svcName}"`)).toEqual([onEdge, onTransit]);
      expect(await ids(`router.name = "${erName}"`)).toEqual([onEdge]);
      expect(await ids(`router.name = "${trName}"`)).toEqual([onTransit]);
      expect(await ids(`service.name = "${svcName}" and instanceId = "inst-1"`)).toEqual([onEdge]);
      expect(await ids(`service.name = "${svcName}" and hostId = null and sourceCtrl = null`)).toEqual([onEdge, onTransit]);
      for (const filter of ['cost = 4', 'precedence = "default"', 'identity = "inst-1"']) {
        expectError(await admin.call('listTerminators', { query: { filter } }), 400, 'INVALID_FILTER');
      }
    });

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
