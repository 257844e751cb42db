import { eq, sql } from 'drizzle-orm';
import { URI, TOTP } from 'otpauth';
import { beforeAll, describe, expect, it } from 'vitest';
import { identities, services } from '../../src/db/schema/index.js';
import { CLIENT } from '../helpers/client.js';
import { TypedApi, type ClientOperations, type ManagementOperations } from '../helpers/typed-api.js';
import { storeFixtures, unique } from './auth-fixtures.js';
import { uniqueName } from './identities.suite.js';
import { OidcClient } from './oidc-fixtures.js';
import type { Suite } from './suite.js';

const PASSWORD = 'kept-pages-password-1';
const INTERCEPT = 'g7cIWbcGg';

/** Passwords this suite uses: the Node collector checks that no reply or log line carries them. */
export const secrets = [PASSWORD];

/**
 * Kept pages of the client's `GET /services` (src/resources/services/page-cache.ts, ADR 0015): a page is
 * answered again only while the identity's stamp, its posture inputs and the page asked for are unchanged.
 * A page is kept only once its stamp has settled, so each test first moves the identity's stamp a minute
 * back (`settle`), as if its last change were that old; the writes under test then stamp it with their own time.
 * A store change made behind the API (no stamp) shows whether an answer was kept.
 */
const keptServicePagesSuite: Suite = ({ client, db }) => {
  let adminToken = '';
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => adminToken);
  beforeAll(async () => {
    adminToken = await client().login();
  });
  const id = (reply: { data?: { id?: string | null } | null }) => reply.data!.id!;

  /** An identity dialling one service with an intercept config, logged in wanting every config type. */
  async function world() {
    const run = unique('kp');
    const username = unique('kp');
    const { identityId } = await storeFixtures(db()).createUser({ username, password: PASSWORD });
    await admin.ok('patchIdentity', { path: { id: identityId }, body: { roleAttributes: [`${run}-who`] } });
    const typeId = id(await admin.ok('createConfigType', { body: { name: uniqueName('kp-type'), schema: {} } }));
    const own = id(await admin.ok('createConfig', { body: { name: uniqueName('kp-own'), configTypeId: typeId, data: { v: 1 } } }));
    const intercept = id(await admin.ok('createConfig', { body: { name: uniqueName('kp-int'), configTypeId: INTERCEPT, data: { protocols: ['tcp'], addresses: ['a.ziti'], portRanges: [{ low: 80, high: 80 }] } } }));
    const serviceId = id(await admin.ok('createService', { body: { name: uniqueName('kp-svc'), encryptionRequired: true, roleAttributes: [`${run}-what`], configs: [own, intercept] } }));
    const policyId = id(await admin.ok('createServicePolicy', { body: { name: uniqueName('kp-sp'), type: 'Dial', semantic: 'AnyOf', identityRoles: [`#${run}-who`], serviceRoles: [`#${run}-what`] } }));
    const reply = await client().request(`${CLIENT}/authenticate?method=password`, { body: { username, password: PASSWORD, configTypes: ['all'] } });
    expect(reply.status, reply.text).toBe(200);
    const token = reply.body.data.token as string;
    const api = new TypedApi<ClientOperations>(client, 'client', () => token);
    const list = () => answered(`${CLIENT}/services?limit=10`, { headers: { 'zt-session': token } });
    return { run, identityId, username, typeId, own, intercept, serviceId, policyId, api, list };
  }

  /** A 200 answer to a GET. */
  async function answered(path: string, options: { headers?: Record<string, string>; token?: string }) {
    const r = await client().request(path, options);
    expect(r.status, r.text).toBe(200);
    return r;
  }

  /**
   * The page `read` gives is kept while the store changes behind the API, and made again once a rename
   * through the API moves the stamp. Returns the first answer.
   */
  async function expectKeptUntilRenamed(w: Awaited<ReturnType<typeof world>>, read: () => ReturnType<typeof answered>, label: string) {
    const first = await read();
    await renameBehindTheApi(w.serviceId, uniqueName(`kp-${label}`));
    expect((await read()).text).toBe(first.text);
    await admin.ok('patchService', { path: { id: w.serviceId }, body: { name: `${w.run}-${label}` } });
    expect((await read()).body.data[0].name).toBe(`${w.run}-${label}`);
    return first;
  }

  /** The identity's last change, a minute back: what the API writes next moves it forward again. */
  async function settle(identityId: string): Promise<void> {
    await db()
      .update(identities)
      .set({ servicesChangedAt: sql`coalesce(${identities.servicesChangedAt}, 0) - 60000` })
      .where(eq(identities.id, identityId));
  }
  /** Renames the service in the store behind the API: no stamp moves, so only a fresh render shows it. */
  const renameBehindTheApi = (serviceId: string, name: string) => db().update(services).set({ name }).where(eq(services.id, serviceId));

  it('answers a settled page again byte for byte, and makes it again once the stamp moves', async () => {
    const w = await world();
    await settle(w.identityId);
    const first = await w.list();
    expect((await w.list()).text).toBe(first.text);
    const renamed = uniqueName('kp-behind');
    await renameBehindTheApi(w.serviceId, renamed);
    // Kept: the store changed, the stamp did not.
    expect((await w.list()).text).toBe(first.text);
    await db()
      .update(identities)
      .set({ servicesChangedAt: sql`${identities.servicesChangedAt} + 1` })
      .where(eq(identities.id, w.identityId));
    expect((await w.list()).body.data[0].name).toBe(renamed);
  });

  it('keeps the page of an OIDC bearer session the same way, read in one statement instead of the session row', async () => {
    const w = await world();
    const bearer = (await new OidcClient(client).passwordTokens(w.username, PASSWORD)).access_token;
    await settle(w.identityId);
    const first = await expectKeptUntilRenamed(w, () => answered(`${CLIENT}/services?limit=10&configTypes=all`, { headers: { authorization: `Bearer ${bearer}` } }), 'bearer');
    expect(first.body.data.map((s: { id: string }) => s.id)).toEqual([w.serviceId]);
  });

  it("keeps an admin's view of the identity's services apart from the identity's own, and makes it again once the stamp moves", async () => {
    const w = await world();
    const view = () => answered(`/edge/management/v1/identities/${w.identityId}/services?limit=10`, { token: adminToken });
    await settle(w.identityId);
    const own = await w.list();
    const first = await expectKeptUntilRenamed(w, view, 'admin');
    expect(first.body.data.map((s: { id: string }) => s.id)).toEqual([w.serviceId]);
    // No config types asked: the admin's view has no config map, the identity's has both configs.
    expect(first.body.data[0].config).toEqual({});
    expect(Object.keys(own.body.data[0].config)).toHaveLength(2);
  });

  it('keeps nothing made within the settling time of the last change', async () => {
    const w = await world();
    const first = await w.list();
    const renamed = uniqueName('kp-young');
    await renameBehindTheApi(w.serviceId, renamed);
    expect((await w.list()).body.data[0].name).toBe(renamed);
    expect(first.body.data[0].name).not.toBe(renamed);
  });

  it('keeps pages apart by what was asked: limit, offset and config types', async () => {
    const w = await world();
    await settle(w.identityId);
    const ten = await w.list();
    const one = await client().request(`${CLIENT}/services?limit=1&offset=0`, { headers: { 'zt-session': (await w.api.ok('getCurrentAPISession')).data.token! } });
    expect(one.body.meta.pagination.limit).toBe(1);
    expect(ten.body.meta.pagination.limit).toBe(10);
    const typed = await w.api.ok('listServices', { query: { configTypes: [INTERCEPT] } });
    expect(Object.keys(typed.data[0].config!)).toEqual(['intercept.v1']);
    expect(Object.keys(ten.body.data[0].config).sort()).toHaveLength(2);
  });

  describe('every write that changes the page is seen on the next answer', () => {
    const changes: [string, (w: Awaited<ReturnType<typeof world>>) => Promise<unknown>, (page: { data: any[] }, w: Awaited<ReturnType<typeof world>>) => void][] = [
      ['the service renamed', (w) => admin.ok('patchService', { path: { id: w.serviceId }, body: { name: `${w.run}-renamed` } }), (p, w) => expect(p.data[0].name).toBe(`${w.run}-renamed`)],
      ['a config of the service changed', (w) => admin.ok('patchConfig', { path: { id: w.own }, body: { data: { v: 2 } } }), (p) => expect(Object.values(p.data[0].config)).toContainEqual({ v: 2 })],
      ['the config type renamed', (w) => admin.ok('patchConfigType', { path: { id: w.typeId }, body: { name: `${w.run}-type` } }), (p, w) => expect(Object.keys(p.data[0].config)).toContain(`${w.run}-type`)],
      [
        'an override of the identity',
        async (w) => {
          const other = id(await admin.ok('createConfig', { body: { name: uniqueName('kp-over'), configTypeId: INTERCEPT, data: { protocols: ['udp'], addresses: ['o.ziti'], portRanges: [{ low: 53, high: 53 }] } } }));
          await admin.ok('associateIdentitysServiceConfigs', { path: { id: w.identityId }, body: [{ serviceId: w.serviceId, configId: other }] });
        },
        (p) => expect(p.data[0].config['intercept.v1'].addresses).toEqual(['o.ziti']),
      ],
      ['the granting policy deleted', (w) => admin.ok('deleteServicePolicy', { path: { id: w.policyId } }), (p) => expect(p.data).toEqual([])],
      ['the identity losing the attribute', (w) => admin.ok('patchIdentity', { path: { id: w.identityId }, body: { roleAttributes: [] } }), (p) => expect(p.data).toEqual([])],
      [
        'a posture check on the policy',
        async (w) => {
          await admin.ok('createPostureCheck', { body: { typeId: 'DOMAIN', name: uniqueName('kp-pc'), domains: [`${w.run}.example`], roleAttributes: [`${w.run}-pc`] } });
          await admin.ok('patchServicePolicy', { path: { id: w.policyId }, body: { postureCheckRoles: [`#${w.run}-pc`] } });
        },
        (p) => expect(p.data[0].postureQueries[0].isPassing).toBe(false),
      ],
    ];
    for (const [what, change, seen] of changes) {
      it(what, async () => {
        const w = await world();
        await settle(w.identityId);
        const before = await w.list();
        expect((await w.list()).text).toBe(before.text);
        await change(w);
        seen((await w.list()).body, w);
      });
    }

    it('a posture response, which moves no stamp', async () => {
      const w = await world();
      await admin.ok('createPostureCheck', { body: { typeId: 'DOMAIN', name: uniqueName('kp-pc'), domains: [`${w.run}.example`], roleAttributes: [`${w.run}-pc`] } });
      await admin.ok('patchServicePolicy', { path: { id: w.policyId }, body: { postureCheckRoles: [`#${w.run}-pc`] } });
      await settle(w.identityId);
      const before = await w.list();
      expect(before.body.data[0].postureQueries[0].isPassing).toBe(false);
      expect((await w.list()).text).toBe(before.text);
      const check = before.body.data[0].postureQueries[0].postureQueries[0].id as string;
      expect((await w.api.call('createPostureResponse', { body: { id: check, typeId: 'DOMAIN', domain: `${w.run}.example` } as never })).status).toBe(201);
      expect((await w.list()).body.data[0].postureQueries[0].isPassing).toBe(true);
    });
  });

  it('keeps no page whose posture depends on the clock (an MFA timeout of a session that passed MFA)', async () => {
    const w = await world();
    await admin.ok('createPostureCheck', { body: { typeId: 'MFA', name: uniqueName('kp-mfa'), timeoutSeconds: 600, promptOnWake: false, promptOnUnlock: false, roleAttributes: [`${w.run}-mfa`] } as never });
    await admin.ok('patchServicePolicy', { path: { id: w.policyId }, body: { postureCheckRoles: [`#${w.run}-mfa`] } });
    await w.api.ok('enrollMfa');
    const t = URI.parse((await w.api.ok('detailMfa')).data.provisioningUrl!) as TOTP;
    expect((await w.api.call('verifyMfa', { body: { code: t.generate() } })).status).toBe(200);
    await settle(w.identityId);
    const first = await w.list();
    expect(first.body.data[0].postureQueries[0].postureQueries[0].timeoutRemaining).toBeGreaterThan(0);
    const renamed = uniqueName('kp-mfa-behind');
    await renameBehindTheApi(w.serviceId, renamed);
    expect((await w.list()).body.data[0].name).toBe(renamed);
  });
};

export default keptServicePagesSuite;
