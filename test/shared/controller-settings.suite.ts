import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ManagementOperations } from '../helpers/typed-api.js';
import { OidcClient } from './oidc-fixtures.js';
import type { Suite } from './suite.js';

const DEFAULT_REDIRECTS = ['openziti://auth/callback', 'https://127.0.0.1:*/auth/callback', 'http://127.0.0.1:*/auth/callback', 'https://localhost:*/auth/callback', 'http://localhost:*/auth/callback'];

/**
 * Management `/controller-settings` (reference oidc.md §9): the global settings and per-controller
 * overrides of the OIDC redirect and post-logout URIs, the effective view, and the provider reading them.
 * Node and workerd.
 */
const controllerSettingsSuite: Suite = ({ client }) => {
  let token = '';
  /** This controller's id, as /controllers lists it. */
  let THIS_CONTROLLER = '';
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => token);
  const oidc = new OidcClient(client);
  /** Whether the provider accepts this redirect URI at authorize. */
  const accepted = async (redirectUri: string) => (await oidc.authorize({ redirectUri })).authorize.status === 302;

  beforeAll(async () => {
    token = await client().login();
    THIS_CONTROLLER = (await admin.ok('listControllers')).data[0].id;
  });
  // Leave the settings as other suites expect them: global inheriting the defaults, no override.
  afterAll(async () => {
    await admin.call('updateControllerSetting', { path: { id: 'global' }, body: {} as never });
    await admin.call('deleteControllerSetting', { path: { id: THIS_CONTROLLER } });
  });

  it('lists the global settings (inheriting the built-in defaults) and shows their effective view', async () => {
    const list = expectConforms(await admin.call('listControllerSettings'), 'listControllerSettings', 'management');
    const global = (list.body.data as any[]).find((s) => s.id === 'global');
    expect(global).toMatchObject({ id: 'global', oidc: { redirectUris: null, postLogoutUris: null }, _links: { self: { href: './controller-settings/global' } } });
    expect(list.body.meta.pagination).toMatchObject({ offset: 0 });
    const detail = expectConforms(await admin.call('detailControllerSetting', { path: { id: 'global' } }), 'detailControllerSetting', 'management');
    expect(detail.body.data.id).toBe('global');
    const effective = expectConforms(await admin.call('detailControllerSettingEffective', { path: { id: 'global' } }), 'detailControllerSettingEffective', 'management');
    expect(effective.body.data.effective!.oidc!.redirectUris).toEqual(DEFAULT_REDIRECTS);
    expect(effective.body.data.instance).toBeNull();
    const mine = expectConforms(await admin.call('detailControllerSettingEffective', { path: { id: THIS_CONTROLLER } }), 'detailControllerSettingEffective', 'management');
    expect(mine.body.data).toMatchObject({ id: THIS_CONTROLLER, instance: null });
    expect((await admin.call('detailControllerSettingEffective', { path: { id: 'another-controller' } })).status).toBe(404);
    expect((await admin.call('detailControllerSetting', { path: { id: 'another-controller' } })).status).toBe(404);
  });

  it('global and per-controller redirect URIs decide what the provider accepts, instance over global over defaults', async () => {
    expect(await accepted('https://console.example.com/auth/callback')).toBe(false);
    expect((await admin.call('patchControllerSetting', { path: { id: 'global' }, body: { oidc: { redirectUris: ['https://console.example.com/auth/callback', 'https://*.example.org/cb'] } } })).status).toBe(200);
    expect(await accepted('https://console.example.com/auth/callback')).toBe(true);
    expect(await accepted('https://zac.example.org/cb')).toBe(true);
    // `*` stops at a slash; the defaults are replaced, not extended.
    expect(await accepted('https://a.b/c.example.org/cb')).toBe(false);
    expect(await accepted('http://localhost:8080/auth/callback')).toBe(false);

    const created = await admin.call('createControllerSetting', { body: { controllerId: THIS_CONTROLLER, oidc: { redirectUris: ['http://localhost:*/auth/callback'], postLogoutUris: ['http://localhost:*/auth/logout'] } } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({ id: THIS_CONTROLLER, _links: { self: { href: `./controller-settings/${THIS_CONTROLLER}` } } });
    expect(await accepted('http://localhost:8080/auth/callback')).toBe(true);
    expect(await accepted('https://console.example.com/auth/callback')).toBe(false);
    const effective = (await admin.ok('detailControllerSettingEffective', { path: { id: THIS_CONTROLLER } })).data;
    expect(effective.instance!.oidc!.redirectUris).toEqual(['http://localhost:*/auth/callback']);
    expect(effective.effective!.oidc).toEqual({ redirectUris: ['http://localhost:*/auth/callback'], postLogoutUris: ['http://localhost:*/auth/logout'] });

    // PUT without a list: it inherits again (from global).
    expect((await admin.call('updateControllerSetting', { path: { id: THIS_CONTROLLER }, body: { oidc: { postLogoutUris: ['https://done.example.com/bye'] } } })).status).toBe(200);
    expect(await accepted('https://console.example.com/auth/callback')).toBe(true);
    const out = await client().get(`/oidc/end_session?post_logout_redirect_uri=${encodeURIComponent('https://done.example.com/bye')}`);
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe('https://done.example.com/bye');

    expect((await admin.call('deleteControllerSetting', { path: { id: THIS_CONTROLLER } })).status).toBe(200);
    expect((await admin.call('deleteControllerSetting', { path: { id: THIS_CONTROLLER } })).status).toBe(404);
    expect((await admin.call('updateControllerSetting', { path: { id: 'global' }, body: {} as never })).status).toBe(200);
    expect(await accepted('http://localhost:8080/auth/callback')).toBe(true);
    expect(await accepted('https://console.example.com/auth/callback')).toBe(false);
  });

  it('refuses bad input with 400 and changes nothing; global cannot be deleted; a controller id is taken once', async () => {
    const bad: Record<string, unknown>[] = [
      { controllerId: '' },
      { controllerId: 'x'.repeat(101) },
      { controllerId: 'c1', oidc: { redirectUris: ['not a uri'] } },
      { controllerId: 'c1', oidc: { redirectUris: ['https://x.example.com/cb#frag'] } },
      { controllerId: 'c1', oidc: { redirectUris: 'https://x.example.com/cb' } },
      { controllerId: 'c1', oidc: { postLogoutUris: Array.from({ length: 101 }, (_, i) => `https://x.example.com/${i}`) } },
      { oidc: {} },
      { controllerId: 'global' },
    ];
    for (const body of bad) {
      const r = await admin.call('createControllerSetting', { body: body as never });
      expect(r.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(r.body.error?.code).toBe('COULD_NOT_VALIDATE');
    }
    expect((await admin.call('detailControllerSetting', { path: { id: 'c1' } })).status).toBe(404);
    const patch = await admin.call('patchControllerSetting', { path: { id: 'global' }, body: { oidc: { redirectUris: ['ftp'] } } });
    expect(patch.status).toBe(400);
    expect((await admin.ok('detailControllerSetting', { path: { id: 'global' } })).data.oidc!.redirectUris).toBeNull();
    const del = await admin.call('deleteControllerSetting', { path: { id: 'global' } });
    expect(del.status).toBe(400);
    expect(del.body.error?.code).toBe('ENTITY_CAN_NOT_BE_DELETED');
    expect((await admin.call('patchControllerSetting', { path: { id: 'nope' }, body: { oidc: {} } })).status).toBe(404);
    // Non-admins and anonymous callers are refused.
    expect((await client().get('/edge/management/v1/controller-settings')).status).toBe(401);
  });
};

export default controllerSettingsSuite;
