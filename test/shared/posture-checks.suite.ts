import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identities, policyLinks } from '../../src/db/schema/index.js';
import { parseRange, parseVersion, SemverError } from '../../src/posture/semver.js';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ManagementOperations } from '../helpers/typed-api.js';
import { expectError, expectFieldError, expectNotFound, uniqueName } from './identities.suite.js';
import type { Suite, SuiteContext } from './suite.js';

const satisfies = (range: string, version: string) => parseRange(range)(parseVersion(version));

/** Posture checks (reference model-and-policies §7.1, §7.4, §3.1, §3.8) and the semver ranges OS checks use. */
/**
 * A suite's admin API, logged in before its tests, and the list of the posture checks it creates, deleted
 * after them: other suites see none (posture is skipped entirely when no check exists).
 */
export function adminWithPostureChecks(client: SuiteContext['client']): { admin: TypedApi<ManagementOperations>; checks: string[] } {
  let token = '';
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => token);
  const checks: string[] = [];
  beforeAll(async () => {
    token = await client().login();
  });
  afterAll(async () => {
    for (const id of checks) await admin.call('deletePostureCheck', { path: { id } });
  });
  return { admin, checks };
}

const postureChecksSuite: Suite = ({ client, db }) => {
  const { admin, checks: created } = adminWithPostureChecks(client);

  const id = (reply: { data?: { id?: string | null } | null }) => reply.data!.id!;
  async function check(body: Record<string, unknown>): Promise<string> {
    const reply = await admin.call('createPostureCheck', { body: { name: uniqueName('pc'), ...body } as never });
    expect(reply.status, reply.text).toBe(201);
    created.push(id(reply.body));
    return id(reply.body);
  }
  const detail = async (checkId: string) => expectConforms(await admin.call('detailPostureCheck', { path: { id: checkId } }), 'detailPostureCheck').body.data as Record<string, any>;
  const identity = async () => id(await admin.ok('createIdentity', { body: { name: uniqueName('id'), isAdmin: false, type: 'User' } }));
  const changedAt = async (identityId: string) => (await db().select({ at: identities.servicesChangedAt }).from(identities).where(eq(identities.id, identityId)))[0]?.at ?? null;

  describe('semver ranges (the grammar OS checks accept)', () => {
    it('parses strict versions and refuses what the controller refuses', () => {
      for (const ok of ['1.2.3', '10.0.19041', '5.15.0-91-generic', '1.0.0-alpha.1+build.5', '0.0.0']) expect(() => parseVersion(ok)).not.toThrow();
      for (const bad of ['', '1', '1.2', 'v1.2.3', '01.2.3', '1.02.3', '1.2.03', '1.2.3.4', '1.2.3-', '1.2.3-01', '1.2.3+', '1.2.3-a..b', '1..3', '18446744073709551616.0.0']) {
        expect(() => parseVersion(bad), bad).toThrow(SemverError);
      }
    });

    it('compares by precedence: pre-releases sort before the release, numerically then lexically', () => {
      expect(satisfies('>1.0.0-alpha', '1.0.0-alpha.1')).toBe(true);
      expect(satisfies('<1.0.0', '1.0.0-rc.1')).toBe(true);
      expect(satisfies('<1.0.0-beta', '1.0.0-alpha.99')).toBe(true);
      expect(satisfies('<1.0.0-alpha.10', '1.0.0-alpha.9')).toBe(true);
      expect(satisfies('=1.0.0', '1.0.0+build')).toBe(true);
      expect(satisfies('>18446744073709551614.0.0', '18446744073709551615.0.0')).toBe(true);
    });

    it('combines comparisons with AND (space) and OR (||), every operator form', () => {
      expect(satisfies('>=1.0.0 <2.0.0', '1.5.0')).toBe(true);
      expect(satisfies('>=1.0.0 <2.0.0', '2.0.0')).toBe(false);
      expect(satisfies('<1.0.0 || >=3.0.0', '3.1.0')).toBe(true);
      expect(satisfies('<1.0.0 || >=3.0.0', '2.0.0')).toBe(false);
      expect(satisfies('>= 10.0.19041', '10.0.22000')).toBe(true);
      for (const [range, yes, no] of [
        ['1.2.3', '1.2.3', '1.2.4'],
        ['=1.2.3', '1.2.3', '1.2.4'],
        ['==1.2.3', '1.2.3', '1.2.4'],
        ['!=1.2.3', '1.2.4', '1.2.3'],
        ['!1.2.3', '1.2.4', '1.2.3'],
        ['>1.2.3', '1.2.4', '1.2.3'],
        ['<=1.2.3', '1.2.3', '1.2.4'],
      ]) {
        expect(satisfies(range, yes), `${range} ${yes}`).toBe(true);
        expect(satisfies(range, no), `${range} ${no}`).toBe(false);
      }
    });

    it('expands x wildcards as the controller library does', () => {
      expect(satisfies('1.2.x', '1.2.9')).toBe(true);
      expect(satisfies('1.2.x', '1.3.0')).toBe(false);
      expect(satisfies('1.x', '1.9.0')).toBe(true);
      expect(satisfies('1.x', '2.0.0')).toBe(false);
      expect(satisfies('>1.2.x', '1.3.0')).toBe(true);
      expect(satisfies('>1.2.x', '1.2.9')).toBe(false);
      expect(satisfies('<=1.x', '1.99.0')).toBe(true);
      // The library ANDs the two halves of a negated wildcard, so `!=1.2.x` matches nothing at all.
      expect(satisfies('!=1.2.x', '1.2.5')).toBe(false);
      expect(satisfies('!=1.2.x', '1.3.0')).toBe(false);
      // One-character words are dropped by its tokenizer: `1.0.0 - 2.0.0` is `=1.0.0 =2.0.0`, never true.
      expect(satisfies('1.0.0 - 2.0.0', '1.0.0')).toBe(false);
    });

    it('refuses malformed ranges', () => {
      for (const bad of ['', 'abc', '>=1.0', '~1.2.3', '^1.2.3', '|| 1.0.0', '>=1.0.0 ||', '>=1.0.0 || || <2.0.0', '>=x', '>=1.0.0\t<2.0.0', '≥1.0.0']) {
        expect(() => parseRange(bad), bad).toThrow(SemverError);
      }
    });
  });

  describe('CRUD of the six types', () => {
    it('creates each type with its properties, normalised (§7.1), and renders it as the specification declares', async () => {
      const os = await check({ typeId: 'OS', roleAttributes: ['b', 'a', 'b'], tags: { t: 1 }, operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041'] }, { type: 'Linux', versions: [] }] });
      expect(await detail(os)).toMatchObject({
        typeId: 'OS',
        version: 1,
        roleAttributes: ['a', 'b'],
        tags: { t: 1 },
        operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041'] }, { type: 'Linux', versions: [] }],
        _links: { self: { href: `./posture-checks/${os}` } },
      });
      const mac = await check({ typeId: 'MAC', macAddresses: ['AA:BB:CC:DD:EE:FF', '01-23-45-67-89-ab', 'zz'] });
      expect((await detail(mac)).macAddresses).toEqual(['aabbccddeeff', '0123456789ab', '']);
      const domain = await check({ typeId: 'DOMAIN', domains: ['Corp.Example'] });
      expect((await detail(domain)).domains).toEqual(['Corp.Example']);
      const proc = await check({ typeId: 'PROCESS', process: { osType: 'Windows', path: 'C:\\App\\app.exe', hashes: ['ABCDEF'], signerFingerprint: 'FF00' } });
      expect((await detail(proc)).process).toEqual({ osType: 'Windows', path: 'C:\\App\\app.exe', hashes: ['abcdef'], signerFingerprint: 'ff00' });
      const multi = await check({ typeId: 'PROCESS_MULTI', semantic: 'AnyOf', processes: [{ osType: 'Linux', path: '/usr/bin/a' }, { osType: 'macOS', path: '/b', hashes: ['AB'], signerFingerprints: ['CD'] }] });
      expect(await detail(multi)).toMatchObject({ semantic: 'AnyOf', processes: [{ osType: 'Linux', path: '/usr/bin/a', hashes: [], signerFingerprints: [] }, { osType: 'macOS', path: '/b', hashes: ['AB'], signerFingerprints: ['CD'] }] });
      const mfa = await check({ typeId: 'MFA', timeoutSeconds: 0, promptOnWake: true });
      expect(await detail(mfa)).toMatchObject({ typeId: 'MFA', timeoutSeconds: -1, promptOnWake: true, promptOnUnlock: false, ignoreLegacyEndpoints: false });
      const negative = await check({ typeId: 'MFA', timeoutSeconds: -30 });
      expect((await detail(negative)).timeoutSeconds).toBe(-1);
      const timed = await check({ typeId: 'MFA', timeoutSeconds: 600, promptOnUnlock: true, ignoreLegacyEndpoints: true });
      expect(await detail(timed)).toMatchObject({ timeoutSeconds: 600, promptOnUnlock: true, ignoreLegacyEndpoints: true });
      // A check renders only its own type's properties.
      expect(await detail(mfa)).not.toHaveProperty('operatingSystems');
      expect(await detail(os)).not.toHaveProperty('timeoutSeconds');
      const listed = expectConforms(await admin.call('listPostureChecks', { query: { filter: `id in ["${os}", "${mfa}"]` } }), 'listPostureChecks');
      expect(listed.body.data.map((c) => c.id).sort()).toEqual([os, mfa].sort());
      expect(listed.body.meta.filterableFields).toEqual(expect.arrayContaining(['name', 'typeId', 'roleAttributes', 'promptOnWake', 'promptOnUnlock', 'tags']));
    });

    it('refuses an invalid OS version range with 400 and the field, not 500; nothing is created', async () => {
      const name = uniqueName('pc');
      const reply = expectFieldError(
        await admin.call('createPostureCheck', { body: { name, typeId: 'OS', operatingSystems: [{ type: 'Linux', versions: ['>=5.0.0'] }, { type: 'Windows', versions: ['>=10.0.0', 'ten'] }] } as never }),
        400,
        'operatingSystems[1].versions[1]',
        /invalid version for os: \[Windows\], version: \[ten\]/,
      );
      expect(reply.body.error.cause.value).toBe('ten');
      expect((await admin.ok('listPostureChecks', { query: { filter: `name = "${name}"` } })).meta.pagination!.totalCount).toBe(0);
      for (const versions of [['>=10'], [''], ['>=10.0.0 ||']]) {
        expectFieldError(await admin.call('createPostureCheck', { body: { name, typeId: 'OS', operatingSystems: [{ type: 'Windows', versions }] } as never }), 400, 'operatingSystems[0].versions[0]');
      }
      const ok = await check({ typeId: 'OS', operatingSystems: [{ type: 'macOS', versions: ['>=13.0.0 <15.0.0 || =16.0.0', '14.x', '!=14.2.1'] }] });
      expect((await detail(ok)).operatingSystems[0].versions).toHaveLength(3);
    });

    it('refuses bad bodies with 400 and keeps nothing: unknown type, missing type properties, wrong shapes, oversized lists', async () => {
      const name = uniqueName('pc');
      expectError(await admin.call('createPostureCheck', { body: { name, typeId: 'BIOMETRIC' } as never }), 400, 'COULD_NOT_VALIDATE');
      expectFieldError(await admin.call('createPostureCheck', { body: { name, typeId: 'MAC' } as never }), 400, 'macAddresses');
      expectFieldError(await admin.call('createPostureCheck', { body: { name, typeId: 'MAC', macAddresses: [] } as never }), 400, 'macAddresses');
      expectFieldError(await admin.call('createPostureCheck', { body: { name, typeId: 'OS', operatingSystems: [{ type: 'BeOS', versions: [] }] } as never }), 400, 'operatingSystems.0.type');
      expectFieldError(await admin.call('createPostureCheck', { body: { name, typeId: 'PROCESS', process: { osType: 'Linux' } } as never }), 400, 'process.path');
      expectFieldError(await admin.call('createPostureCheck', { body: { name, typeId: 'PROCESS_MULTI', processes: [{ osType: 'Linux', path: '/a' }] } as never }), 400, 'semantic');
      expectFieldError(await admin.call('createPostureCheck', { body: { name, typeId: 'MFA', timeoutSeconds: 'soon' } as never }), 400, 'timeoutSeconds');
      expectFieldError(await admin.call('createPostureCheck', { body: { name, typeId: 'DOMAIN', domains: Array.from({ length: 101 }, (_, i) => `d${i}`) } as never }), 400, 'domains');
      expectFieldError(await admin.call('createPostureCheck', { body: { name, typeId: 'DOMAIN', domains: ['a\u0000b'] } as never }), 400, 'domains[0]');
      expectFieldError(await admin.call('createPostureCheck', { body: { name, typeId: 'DOMAIN', domains: ['x'], roleAttributes: ['#x'] } as never }), 400, 'roleAttributes');
      expectFieldError(await admin.call('createPostureCheck', { body: { name: '', typeId: 'DOMAIN', domains: ['x'] } as never }), 400, 'name');
      expect((await admin.ok('listPostureChecks', { query: { filter: `name = "${name}"` } })).meta.pagination!.totalCount).toBe(0);
    });

    it('keeps names unique: a duplicate is 400, and one of 20 concurrent creates wins', async () => {
      const name = uniqueName('pc');
      const first = await check({ name, typeId: 'DOMAIN', domains: ['a'] });
      expectFieldError(await admin.call('createPostureCheck', { body: { name, typeId: 'MFA' } as never }), 400, 'name', 'name must be unique');
      const race = uniqueName('race');
      const replies = await Promise.all(Array.from({ length: 20 }, () => admin.call('createPostureCheck', { body: { name: race, typeId: 'MFA' } as never })));
      const won = replies.filter((r) => r.status === 201);
      expect(won).toHaveLength(1);
      created.push(won[0].body.data!.id!);
      for (const r of replies.filter((x) => x.status !== 201)) expectFieldError(r, 400, 'name', 'name must be unique');
      expect(first).toBeTruthy();
    });

    it('PATCH writes the present properties, PUT all of them; the type is fixed; version stays 1', async () => {
      const mfa = await check({ typeId: 'MFA', timeoutSeconds: 300, promptOnWake: true, promptOnUnlock: true, roleAttributes: ['r'] });
      const before = await detail(mfa);
      await admin.ok('patchPostureCheck', { path: { id: mfa }, body: { typeId: 'MFA', promptOnWake: false } as never });
      const patched = await detail(mfa);
      expect(patched).toMatchObject({ timeoutSeconds: 300, promptOnWake: false, promptOnUnlock: true, roleAttributes: ['r'], version: 1, name: before.name });
      expect(Date.parse(patched.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
      const name = uniqueName('pc');
      await admin.ok('updatePostureCheck', { path: { id: mfa }, body: { name, typeId: 'MFA', promptOnUnlock: true } as never });
      expect(await detail(mfa)).toMatchObject({ name, timeoutSeconds: -1, promptOnWake: false, promptOnUnlock: true, ignoreLegacyEndpoints: false, roleAttributes: null, tags: {} });
      // The body's type chose its schema: it must be the check's own.
      expectFieldError(await admin.call('patchPostureCheck', { path: { id: mfa }, body: { typeId: 'DOMAIN', domains: ['x'] } as never }), 400, 'typeId', /may not be changed/);
      expectFieldError(await admin.call('updatePostureCheck', { path: { id: mfa }, body: { name } as never }), 400, 'typeId', 'typeId in body is required');
      expectFieldError(await admin.call('patchPostureCheck', { path: { id: mfa }, body: { promptOnWake: true } as never }), 400, 'typeId');
      expect((await detail(mfa)).typeId).toBe('MFA');

      const proc = await check({ typeId: 'PROCESS', process: { osType: 'Linux', path: '/a', hashes: ['AA'] } });
      await admin.ok('patchPostureCheck', { path: { id: proc }, body: { typeId: 'PROCESS', process: { osType: 'macOS', path: '/b', signerFingerprint: 'BEEF' } } as never });
      expect((await detail(proc)).process).toEqual({ osType: 'macOS', path: '/b', hashes: [], signerFingerprint: 'beef' });
      await admin.ok('patchPostureCheck', { path: { id: proc }, body: { typeId: 'PROCESS', process: null } as never });
      expect((await detail(proc)).process.path).toBe('/b');
      const os = await check({ typeId: 'OS', operatingSystems: [{ type: 'Linux', versions: [] }] });
      expectFieldError(await admin.call('patchPostureCheck', { path: { id: os }, body: { typeId: 'OS', operatingSystems: [{ type: 'Linux', versions: ['bad'] }] } as never }), 400, 'operatingSystems[0].versions[0]');
      expect((await detail(os)).operatingSystems).toEqual([{ type: 'Linux', versions: [] }]);
      const mac = await check({ typeId: 'MAC', macAddresses: ['aa'] });
      await admin.ok('patchPostureCheck', { path: { id: mac }, body: { typeId: 'MAC', macAddresses: ['BB-CC'] } as never });
      expect((await detail(mac)).macAddresses).toEqual(['bbcc']);
    });

    it('answers 404 for unknown ids on detail, PUT, PATCH and DELETE; DELETE removes the check', async () => {
      for (const reply of [
        await admin.call('detailPostureCheck', { path: { id: 'nope' } }),
        await admin.call('updatePostureCheck', { path: { id: 'nope' }, body: { name: 'x', typeId: 'MFA' } as never }),
        await admin.call('patchPostureCheck', { path: { id: 'nope' }, body: { typeId: 'MFA' } as never }),
        await admin.call('deletePostureCheck', { path: { id: 'nope' } }),
      ]) {
        expectNotFound(reply, 'postureCheck', 'nope');
      }
      const gone = await check({ typeId: 'MFA' });
      expect((await admin.call('deletePostureCheck', { path: { id: gone } })).status).toBe(200);
      expectNotFound(await admin.call('detailPostureCheck', { path: { id: gone } }), 'postureCheck', gone);
    });

    it('filters on typeId and promptOnWake, honours roleFilter, and lists the role attributes', async () => {
      const attr = uniqueName('attr');
      const wake = await check({ typeId: 'MFA', promptOnWake: true, roleAttributes: [attr, 'shared-x'] });
      const dom = await check({ typeId: 'DOMAIN', domains: ['d'], roleAttributes: [attr] });
      const byType = await admin.ok('listPostureChecks', { query: { filter: `id in ["${wake}", "${dom}"] and typeId = "MFA"` } });
      expect(byType.data.map((c) => c.id)).toEqual([wake]);
      const byWake = await admin.ok('listPostureChecks', { query: { filter: `id in ["${wake}", "${dom}"] and promptOnWake = true` } });
      expect(byWake.data.map((c) => c.id)).toEqual([wake]);
      const roles = await admin.ok('listPostureChecks', { query: { roleFilter: [`#${attr}`, '#shared-x'], roleSemantic: 'AllOf' } });
      expect(roles.data.map((c) => c.id)).toEqual([wake]);
      const any = await admin.ok('listPostureChecks', { query: { roleFilter: [`#${attr}`], roleSemantic: 'AnyOf' } });
      expect(any.data.map((c) => c.id).sort()).toEqual([wake, dom].sort());
      expectFieldError(await admin.call('listPostureChecks', { query: { roleFilter: [attr] } }), 400, 'roleFilter');
      // What the Admin Console's service-policy form sends (v1.6.2 refuses it; later controllers answer it, ADR 0001).
      const byAttribute = await admin.ok('listPostureChecks', { query: { filter: `anyOf(roleAttributes) = "${attr}"` } });
      expect(byAttribute.data.map((c) => c.id).sort()).toEqual([wake, dom].sort());
      const none = await admin.ok('listPostureChecks', { query: { filter: `anyOf(roleAttributes) = "${attr}-none"` } });
      expect(none.data).toEqual([]);
      const attrs = expectConforms(await admin.call('listPostureCheckRoleAttributes', { query: { filter: `id = "${attr}"` } }), 'listPostureCheckRoleAttributes');
      expect(attrs.body.data).toEqual([attr]);
      expect(attrs.body.meta.filterableFields).toEqual(['id']);
      expectError(await admin.call('listPostureCheckRoleAttributes', { query: { filter: 'nope = 1' } }), 400, 'INVALID_FILTER');
    });
  });

  describe('posture check types (§7.4)', () => {
    it('lists the five fixed types sorted by id, without MFA, with list conventions', async () => {
      const all = expectConforms(await admin.call('listPostureCheckTypes'), 'listPostureCheckTypes');
      expect(all.body.data.map((t) => t.id)).toEqual(['DOMAIN', 'MAC', 'OS', 'PROCESS', 'PROCESS_MULTI']);
      expect(all.body.meta.pagination).toEqual({ limit: 10, offset: 0, totalCount: 5 });
      expect(all.body.data[0]).toMatchObject({ name: 'Windows Domain Check', operatingSystems: [{ type: 'Windows', versions: ['Vista', '7', '8', '10', '2000'] }], _links: { self: { href: './posture-check-types/DOMAIN' } } });
      expect(all.body.data[2].operatingSystems.map((o) => o.type)).toEqual(['Windows', 'Linux', 'Android', 'macOS', 'iOS']);
      expect(all.body.data[4].operatingSystems).toEqual([
        { type: 'Windows', versions: [] },
        { type: 'macOS', versions: [] },
        { type: 'Linux', versions: [] },
      ]);
      const filtered = await admin.ok('listPostureCheckTypes', { query: { filter: 'name contains "Process"', sort: 'name desc' } });
      expect(filtered.data.map((t) => t.id)).toEqual(['PROCESS_MULTI', 'PROCESS']);
      const paged = await admin.ok('listPostureCheckTypes', { query: { limit: 2, offset: 3 } });
      expect(paged.data.map((t) => t.id)).toEqual(['PROCESS', 'PROCESS_MULTI']);
      expect(paged.meta.pagination).toEqual({ limit: 2, offset: 3, totalCount: 5 });
      expectError(await admin.call('listPostureCheckTypes', { query: { filter: 'operatingSystems = 1' } }), 400, 'INVALID_FILTER');
      expectError(await admin.call('listPostureCheckTypes', { query: { sort: 'nope' } }), 400, 'INVALID_SORT_IDENTIFIER');
      const os = expectConforms(await admin.call('detailPostureCheckType', { path: { id: 'OS' } }), 'detailPostureCheckType');
      expect(os.body.data).toMatchObject({ id: 'OS', name: 'Operating System Check' });
      expectNotFound(await admin.call('detailPostureCheckType', { path: { id: 'MFA' } }), 'postureCheckType', 'MFA');
    });
  });

  describe('service policies and posture checks', () => {
    const policy = async (semantic: 'AllOf' | 'AnyOf', postureCheckRoles: string[], identityRoles: string[] = []) =>
      id(await admin.ok('createServicePolicy', { body: { name: uniqueName('sp'), type: 'Dial', semantic, postureCheckRoles, identityRoles } }));
    const matched = async (policyId: string) => (await admin.ok('listServicePolicyPostureChecks', { path: { id: policyId }, query: { limit: 500 } })).data.map((c) => c.id).sort();

    it('validates @ids against the checks, displays them by name, and lists the checks a policy matches (AllOf / AnyOf / #all)', async () => {
      const missing = expectFieldError(
        await admin.call('createServicePolicy', { body: { name: uniqueName('sp'), type: 'Dial', semantic: 'AllOf', postureCheckRoles: ['@no-such-check'] } }),
        400,
        'postureCheckRoles',
        'no postureChecks found with the given ids',
      );
      expect(missing.body.error.cause.value).toBe('[no-such-check]');
      const [a, b] = [uniqueName('a'), uniqueName('b')];
      const both = await check({ typeId: 'MFA', roleAttributes: [a, b] });
      const onlyA = await check({ typeId: 'MFA', roleAttributes: [a] });
      const byId = await check({ typeId: 'DOMAIN', domains: ['x'] });
      const all = await policy('AllOf', [`#${a}`, `#${b}`]);
      const any = await policy('AnyOf', [`#${a}`, `#${b}`, `@${byId}`]);
      expect(await matched(all)).toEqual([both]);
      expect(await matched(any)).toEqual([both, onlyA, byId].sort());
      const name = (await detail(byId)).name;
      const shown = expectConforms(await admin.call('detailServicePolicy', { path: { id: any } }), 'detailServicePolicy').body.data;
      expect(shown.postureCheckRolesDisplay).toEqual([{ role: `#${a}`, name: `#${a}` }, { role: `#${b}`, name: `#${b}` }, { role: `@${byId}`, name: `@${name}` }]);
      const listed = expectConforms(await admin.call('listServicePolicyPostureChecks', { path: { id: any }, query: { filter: 'typeId = "DOMAIN"' } }), 'listServicePolicyPostureChecks');
      expect(listed.body.data.map((c) => c.id)).toEqual([byId]);
      expect((await admin.ok('listServicePolicyPostureChecks', { path: { id: 'no-such-policy' } })).data).toEqual([]);
      // An attribute change relinks the check in its own batch.
      await admin.ok('patchPostureCheck', { path: { id: onlyA }, body: { typeId: 'MFA', roleAttributes: [a, b] } as never });
      expect(await matched(all)).toEqual([both, onlyA].sort());
      // A new check matching #all appears at once.
      const everything = await policy('AnyOf', ['#all']);
      const fresh = await check({ typeId: 'MFA' });
      expect(await matched(everything)).toContain(fresh);
    });

    it('a deleted check leaves every policy that names it, with its links, in the delete batch (§3.8)', async () => {
      const c = await check({ typeId: 'MFA' });
      const other = await check({ typeId: 'MFA' });
      const p = await policy('AnyOf', [`@${c}`, `@${other}`]);
      await admin.ok('deletePostureCheck', { path: { id: c } });
      expect((await admin.ok('detailServicePolicy', { path: { id: p } })).data.postureCheckRoles).toEqual([`@${other}`]);
      expect(await matched(p)).toEqual([other]);
      const links = await db().select().from(policyLinks).where(eq(policyLinks.entityId, c));
      expect(links).toEqual([]);
    });

    it('stamps the service updates of the identities of the policies a check write touches, and only those', async () => {
      const attr = uniqueName('attr');
      const [inPolicy, outside] = [await identity(), await identity()];
      await policy('AllOf', [`#${attr}`], [`@${inPolicy}`]);
      const t0 = await changedAt(inPolicy);
      const t1 = await changedAt(outside);
      const wait = () => new Promise((r) => setTimeout(r, 5));
      await wait();
      // Create: the check joins the policy.
      const c = await check({ typeId: 'MFA', roleAttributes: [attr] });
      const afterCreate = await changedAt(inPolicy);
      expect(afterCreate).toBeGreaterThan(t0 ?? 0);
      await wait();
      // Update of a property: its queries change.
      await admin.ok('patchPostureCheck', { path: { id: c }, body: { typeId: 'MFA', promptOnWake: true } as never });
      const afterPatch = await changedAt(inPolicy);
      expect(afterPatch).toBeGreaterThan(afterCreate!);
      await wait();
      // Leaving the policy (attributes) stamps the identities it matched before.
      await admin.ok('patchPostureCheck', { path: { id: c }, body: { typeId: 'MFA', roleAttributes: ['elsewhere'] } as never });
      const afterLeave = await changedAt(inPolicy);
      expect(afterLeave).toBeGreaterThan(afterPatch!);
      await wait();
      // A write to a check no policy of the identity matches does not touch it.
      await admin.ok('patchPostureCheck', { path: { id: c }, body: { typeId: 'MFA', promptOnUnlock: true } as never });
      expect(await changedAt(inPolicy)).toBe(afterLeave);
      await admin.ok('patchPostureCheck', { path: { id: c }, body: { typeId: 'MFA', roleAttributes: [attr] } as never });
      const back = await changedAt(inPolicy);
      expect(back).toBeGreaterThan(afterLeave!);
      await wait();
      await admin.ok('deletePostureCheck', { path: { id: c } });
      expect(await changedAt(inPolicy)).toBeGreaterThan(back!);
      expect(await changedAt(outside)).toBe(t1);
    });
  });
};

export default postureChecksSuite;
