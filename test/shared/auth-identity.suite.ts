import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { identities } from '../../src/db/schema/index.js';
import { ADMIN_PASSWORD, CLIENT, MGMT, type Reply } from '../helpers/client.js';
import { conformance } from '../helpers/spec-schemas.js';
import { storeFixtures, unique, type AuthFixtures } from './auth-fixtures.js';
import type { SuiteContext } from './suite.js';

let ipCounter = 0;
/** A distinct documentation-range address per test, so the failed-attempt throttle never couples tests. */
function freshIp(): string {
  ipCounter++;
  return `198.18.${Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`;
}

/**
 * Identities with password authenticators (created in the store), their logins, self-service password
 * changes, disabled identities, lockout, partial sessions, the failed-attempt throttle and the management
 * API-session endpoints: on Node and on workerd.
 */
export default function authIdentitySuite({ client, db }: SuiteContext): void {
  const fixtures = (): AuthFixtures => storeFixtures(db());
  const login = (username: string, password: string, api = CLIENT, ip = freshIp()): Promise<Reply> =>
    client().request(`${api}/authenticate?method=password`, { body: { username, password }, headers: { 'cf-connecting-ip': ip } });

  async function newUser(options: { password?: string; authPolicyId?: string; isAdmin?: boolean } = {}) {
    const username = unique('user');
    const password = options.password ?? 'first-Passw0rd!';
    const ids = await fixtures().createUser({ username, password, authPolicyId: options.authPolicyId, isAdmin: options.isAdmin });
    return { username, password, ...ids };
  }

  describe('identities with password authenticators', () => {
    it('a new identity logs in on both APIs and sees itself, but no management entity', async () => {
      const user = await newUser();
      for (const api of [CLIENT, MGMT]) {
        const reply = await login(user.username, user.password, api);
        expect(reply.status).toBe(200);
        expect(reply.body.data.identityId).toBe(user.identityId);
        expect(reply.body.data.authenticatorId).toBe(user.authenticatorId);
        const token = reply.body.data.token;
        const me = await client().get(`${api}/current-identity`, token);
        expect(me.status).toBe(200);
        expect(me.body.data).toMatchObject({ id: user.identityId, isAdmin: false, isDefaultAdmin: false, hasApiSession: true });
        expect(me.body.data.authenticators).toEqual({ updb: { id: user.authenticatorId, username: user.username } });
      }
      const token = (await login(user.username, user.password)).body.data.token;
      for (const path of ['/identities', '/api-sessions', '/auth-policies', `/identities/${user.identityId}`]) {
        const denied = await client().get(`${MGMT}${path}`, token);
        expect(denied.status, path).toBe(401);
        expect(denied.body.error.code).toBe('UNAUTHORIZED');
      }
    });

    it('reads the session back exactly whatever its text holds (the session check packs its columns into one JSON value)', async () => {
      const user = await newUser();
      const admin = await client().login();
      // Quotes, a backslash, a line separator, non-Latin-1 and an astral character: all escaped in JSON and read back as given.
      const name = `${unique('Zoë')} "quoted" \\ back\\slash \u2028 ☃ 🚀`;
      const renamed = await client().request(`${MGMT}/identities/${user.identityId}`, { method: 'PATCH', token: admin, body: { name } });
      expect(renamed.status).toBe(200);
      const reply = await client().request(`${CLIENT}/authenticate?method=password`, {
        body: { username: user.username, password: user.password, configTypes: ['all'] },
        headers: { 'cf-connecting-ip': '2001:db8::7' },
      });
      expect(reply.status).toBe(200);
      const session = await client().get(`${CLIENT}/current-api-session`, reply.body.data.token);
      expect(session.status).toBe(200);
      const data = session.body.data;
      expect(data.identity.name).toBe(name);
      expect(data).toMatchObject({ id: reply.body.data.id, identityId: user.identityId, authenticatorId: user.authenticatorId, ipAddress: '2001:db8::7', configTypes: ['all'], tags: {} });
      expect(data).toMatchObject({ isMfaRequired: false, isMfaComplete: false, isCertExtendable: false, createdAt: reply.body.data.createdAt });
      expect(data).not.toHaveProperty('improperClientCertChain');
      const me = await client().get(`${CLIENT}/current-identity`, reply.body.data.token);
      expect(me.body.data).toMatchObject({ id: user.identityId, name, isAdmin: false, disabled: false, disabledAt: null });
    });

    it('stores envInfo and sdkInfo from the login, replacing them as a whole', async () => {
      const user = await newUser();
      const body = { username: user.username, password: user.password, envInfo: { os: 'linux', arch: 'amd64', hostname: 'h1' }, sdkInfo: { type: 'ziti-sdk-golang', version: '1.1.1' } };
      const first = await client().request(`${CLIENT}/authenticate?method=password`, { body });
      const me = await client().get(`${CLIENT}/current-identity`, first.body.data.token);
      expect(me.body.data.envInfo).toEqual({ os: 'linux', arch: 'amd64', hostname: 'h1' });
      expect(me.body.data.sdkInfo).toEqual({ type: 'ziti-sdk-golang', version: '1.1.1' });
      // Absent: kept. Present: replaced as a whole (os and hostname go).
      const second = await client().request(`${CLIENT}/authenticate?method=password`, { body: { username: user.username, password: user.password, envInfo: { arch: 'arm64' } } });
      const me2 = await client().get(`${CLIENT}/current-identity`, second.body.data.token);
      expect(me2.body.data.envInfo).toEqual({ arch: 'arm64' });
      expect(me2.body.data.sdkInfo).toEqual({ type: 'ziti-sdk-golang', version: '1.1.1' });
    });

    it('renders sdkInfo/envInfo with only the fields sent, exactly, in every view; {} before any login', async () => {
      // auth_cert_test.go (v1.6.2): the SDK's partial sdkInfo reads back from GET /identities/{id} unchanged.
      const admin = (await client().request(`${MGMT}/authenticate?method=password`, { body: { username: 'admin', password: ADMIN_PASSWORD }, headers: { 'cf-connecting-ip': freshIp() } })).body.data.token;
      const detail = async (id: string) => (await client().get(`${MGMT}/identities/${id}`, admin)).body.data;
      const listed = async (id: string) => (await client().get(`${MGMT}/identities?filter=${encodeURIComponent(`id = "${id}"`)}`, admin)).body.data[0];

      const user = await newUser();
      for (const d of [await detail(user.identityId), await listed(user.identityId)]) {
        expect(d.sdkInfo).toEqual({});
        expect(d.envInfo).toEqual({});
      }

      const sdkInfo = { type: 'ziti-sdk-golang', branch: 'main', version: 'v1.6.2', revision: 'abc1234' };
      const envInfo = { os: 'linux', arch: 'amd64', osVersion: '' };
      const reply = await client().request(`${CLIENT}/authenticate?method=password`, { body: { username: user.username, password: user.password, sdkInfo, envInfo }, headers: { 'cf-connecting-ip': freshIp() } });
      expect(reply.status, reply.text).toBe(200);
      const me = (await client().get(`${CLIENT}/current-identity`, reply.body.data.token)).body.data;
      for (const d of [await detail(user.identityId), await listed(user.identityId), me]) {
        expect(d.sdkInfo).toEqual(sdkInfo);
        expect(d.envInfo).toEqual({ os: 'linux', arch: 'amd64' });
      }
      expect(conformance('management', 'detailIdentity', 200, { data: await detail(user.identityId), meta: {} })).toEqual([]);
      const posture = (await client().get(`${MGMT}/identities/${user.identityId}/posture-data`, admin)).body.data;
      expect(posture.apiSessionPostureData[reply.body.data.id].sdkInfo).toEqual(sdkInfo);

      // A row stored padded with "" (by earlier versions) renders without the empty fields.
      await db().update(identities).set({
        sdkInfo: JSON.stringify({ appId: '', appVersion: '', branch: '', revision: '', type: 'ziti-sdk-c', version: '1.0.0' }),
        envInfo: JSON.stringify({ arch: '', os: '', osRelease: '', osVersion: '', domain: '', hostname: '' }),
      }).where(eq(identities.id, user.identityId));
      const padded = await detail(user.identityId);
      expect(padded.sdkInfo).toEqual({ type: 'ziti-sdk-c', version: '1.0.0' });
      expect(padded.envInfo).toEqual({});
    });

    it('lists and details its own authenticators, without secrets; another identity\'s is 404', async () => {
      const user = await newUser();
      const token = (await login(user.username, user.password)).body.data.token;
      for (const [api, key] of [[CLIENT, 'client'], [MGMT, 'management']] as const) {
        const list = await client().get(`${api}/current-identity/authenticators`, token);
        expect(list.status).toBe(200);
        expect(conformance(key, 'listCurrentIdentityAuthenticators', 200, list.body)).toEqual([]);
        expect(list.body.meta.pagination).toEqual({ limit: 10, offset: 0, totalCount: 1 });
        expect(list.body.meta.filterableFields).toContain('method');
        expect(list.body.meta.filterableFields).not.toContain('updbPassword');
        const [item] = list.body.data;
        expect(item).toMatchObject({ id: user.authenticatorId, method: 'updb', username: user.username, identityId: user.identityId });
        expect(item.identity).toMatchObject({ id: user.identityId, entity: 'identities' });
        expect(item._links.self.href).toBe(`./current-identity/authenticators/${user.authenticatorId}`);
        const detail = await client().get(`${api}/current-identity/authenticators/${user.authenticatorId}`, token);
        expect(detail.status).toBe(200);
        expect(conformance(key, 'detailCurrentIdentityAuthenticator', 200, detail.body)).toEqual([]);
        expect(detail.body.data).toEqual(item);
        expect(list.text + detail.text).not.toMatch(/pbkdf2|passwordHash|first-Passw0rd/);
      }
      const filtered = await client().get(`${CLIENT}/current-identity/authenticators?filter=${encodeURIComponent('method = "cert"')}`, token);
      expect(filtered.body.data).toEqual([]);
      const admin = await client().login();
      const adminAuth = (await client().get(`${CLIENT}/current-identity`, admin)).body.data.authenticators.updb.id;
      const foreign = await client().get(`${CLIENT}/current-identity/authenticators/${adminAuth}`, token);
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.code).toBe('NOT_FOUND');
      const foreignPut = await client().request(`${CLIENT}/current-identity/authenticators/${adminAuth}`, { method: 'PUT', token, body: { username: 'stolen-admin', password: 'new-password-1', currentPassword: ADMIN_PASSWORD } });
      expect(foreignPut.status).toBe(404);
      expect(foreignPut.text).not.toContain(ADMIN_PASSWORD);
    });

    it('changes its password with the current one: old fails, new works, sessions survive, new salt', async () => {
      const user = await newUser();
      const token = (await login(user.username, user.password)).body.data.token;
      const path = `${CLIENT}/current-identity/authenticators/${user.authenticatorId}`;
      const before = await fixtures().passwordHash(user.authenticatorId);

      const wrong = await client().request(path, { method: 'PUT', token, body: { username: user.username, password: 'second-Passw0rd!', currentPassword: 'not-the-password' } });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('UNAUTHORIZED');
      expect(wrong.body.error.cause).toEqual({ field: 'currentPassword', reason: 'invalid current password' });
      expect(wrong.text).not.toContain('not-the-password');
      expect(wrong.text).not.toContain('second-Passw0rd!');

      const put = await client().request(path, { method: 'PUT', token, body: { username: user.username, password: 'second-Passw0rd!', currentPassword: user.password } });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({ data: {}, meta: {} });
      expect((await login(user.username, user.password)).status).toBe(401);
      expect((await login(user.username, 'second-Passw0rd!')).status).toBe(200);
      expect((await client().get(`${CLIENT}/current-api-session`, token)).status).toBe(200);

      const after = await fixtures().passwordHash(user.authenticatorId);
      expect(after).not.toBe(before);
      expect(after!.split('$')[2]).not.toBe(before!.split('$')[2]);

      // Same password again: still a fresh salt.
      await client().request(path, { method: 'PATCH', token, body: { password: 'second-Passw0rd!', currentPassword: 'second-Passw0rd!' } });
      const again = await fixtures().passwordHash(user.authenticatorId);
      expect(again!.split('$')[2]).not.toBe(after!.split('$')[2]);
      expect((await login(user.username, 'second-Passw0rd!', MGMT)).status).toBe(200);
    });

    it('patches the username alone, refuses a taken one and enforces required fields', async () => {
      const user = await newUser();
      const other = await newUser();
      const token = (await login(user.username, user.password)).body.data.token;
      const path = `${MGMT}/current-identity/authenticators/${user.authenticatorId}`;
      const renamed = unique('renamed');
      const patch = await client().request(path, { method: 'PATCH', token, body: { username: renamed, currentPassword: user.password, tags: { team: 'blue' } } });
      expect(patch.status).toBe(200);
      expect((await login(renamed, user.password)).status).toBe(200);
      expect((await login(user.username, user.password)).status).toBe(401);
      const detail = await client().get(path, token);
      expect(detail.body.data).toMatchObject({ username: renamed, tags: { team: 'blue' } });

      const taken = await client().request(path, { method: 'PATCH', token, body: { username: other.username, currentPassword: user.password } });
      expect(taken.status).toBe(400);
      expect(taken.body.error.code).toBe('COULD_NOT_VALIDATE');
      expect(taken.body.error.cause.field).toBe('username');

      const noCurrent = await client().request(path, { method: 'PATCH', token, body: { password: 'another-pass' } });
      expect(noCurrent.status).toBe(400);
      expect(noCurrent.body.error.cause.field).toBe('currentPassword');
      const putMissing = await client().request(path, { method: 'PUT', token, body: { password: 'another-pass', currentPassword: user.password } });
      expect(putMissing.status).toBe(400);
      expect(putMissing.body.error.cause.field).toBe('username');
      const shortNew = await client().request(path, { method: 'PATCH', token, body: { password: 'abc', currentPassword: user.password } });
      expect(shortNew.status).toBe(400);
      expect(shortNew.body.error.cause.field).toBe('password');
      expect(shortNew.text).not.toContain(user.password);
    });

    it('holds a chosen password to the auth policy\'s rules', async () => {
      const policy = await fixtures().createAuthPolicy({ updbMinPasswordLength: 12, updbRequireNumberChar: true, updbRequireMixedCase: true, updbRequireSpecialChar: true });
      const user = await newUser({ authPolicyId: policy, password: 'simple' });
      const token = (await login(user.username, 'simple')).body.data.token;
      const path = `${CLIENT}/current-identity/authenticators/${user.authenticatorId}`;
      for (const weak of ['Short1!', 'no-numbers-Here!', 'no-upper-case-1!', 'NoSpecialChars123']) {
        const reply = await client().request(path, { method: 'PATCH', token, body: { password: weak, currentPassword: 'simple' } });
        expect(reply.status, weak).toBe(400);
        expect(reply.body.error.cause.field).toBe('password');
        expect(reply.text).not.toContain(weak);
      }
      const strong = await client().request(path, { method: 'PATCH', token, body: { password: 'Much-Better-Passw0rd', currentPassword: 'simple' } });
      expect(strong.status).toBe(200);
    });

    it('refuses a disabled identity with 401 INVALID_AUTH, and accepts it once the period is over', async () => {
      const user = await newUser();
      const now = Date.now();
      await fixtures().setDisabled(user.identityId, now, null);
      const reply = await login(user.username, user.password);
      expect(reply.status).toBe(401);
      expect(reply.body.error.code).toBe('INVALID_AUTH');
      await fixtures().setDisabled(user.identityId, now - 120_000, now + 60_000);
      expect((await login(user.username, user.password)).status).toBe(401);
      await fixtures().setDisabled(user.identityId, now - 120_000, now - 60_000);
      expect((await login(user.username, user.password)).status).toBe(200);
    });

    it('ends the sessions of an identity that gets disabled', async () => {
      const user = await newUser();
      const token = (await login(user.username, user.password)).body.data.token;
      await fixtures().setDisabled(user.identityId, Date.now(), null);
      const reply = await client().get(`${CLIENT}/current-api-session`, token);
      expect(reply.status).toBe(401);
    });

    it('refuses password logins when the auth policy does not allow them', async () => {
      const policy = await fixtures().createAuthPolicy({ updbAllowed: false });
      const user = await newUser({ authPolicyId: policy });
      const reply = await login(user.username, user.password);
      expect(reply.status).toBe(401);
      expect(reply.body.error.code).toBe('INVALID_AUTH');
    });

    it('locks an identity out after more than maxAttempts consecutive failures', async () => {
      const policy = await fixtures().createAuthPolicy({ updbMaxAttempts: 2, updbLockoutDurationMinutes: 5 });
      const user = await newUser({ authPolicyId: policy });
      const token = (await login(user.username, user.password)).body.data.token;

      // A success resets the count: 2 failures, success, 2 failures, success.
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 2; i++) expect((await login(user.username, 'wrong-password')).status).toBe(401);
        expect((await login(user.username, user.password)).status).toBe(200);
      }
      // The third consecutive failure exceeds maxAttempts = 2 and locks.
      for (let i = 0; i < 3; i++) {
        const reply = await login(user.username, 'wrong-password');
        expect(reply.status).toBe(401);
        expect(reply.body.error.code).toBe('INVALID_AUTH');
      }
      const locked = await login(user.username, user.password);
      expect(locked.status).toBe(401);
      expect(locked.body.error.code).toBe('INVALID_AUTH');
      expect((await client().get(`${CLIENT}/current-api-session`, token)).status).toBe(401);
      expect(await fixtures().sessionCount(user.identityId)).toBe(0);

      const admin = await client().login();
      const me = await client().get(`${MGMT}/current-identity`, admin);
      expect(me.status).toBe(200);
      // The lock is a timed disable: once it is over, the identity logs in with a clean count.
      await fixtures().setDisabled(user.identityId, Date.now() - 10 * 60_000, Date.now() - 60_000);
      expect((await login(user.username, 'wrong-password')).status).toBe(401);
      expect((await login(user.username, user.password)).status).toBe(200);
    });

    it('counts wrong current passwords towards the lockout', async () => {
      const policy = await fixtures().createAuthPolicy({ updbMaxAttempts: 1, updbLockoutDurationMinutes: 0 });
      const user = await newUser({ authPolicyId: policy });
      const token = (await login(user.username, user.password)).body.data.token;
      const path = `${CLIENT}/current-identity/authenticators/${user.authenticatorId}`;
      for (let i = 0; i < 2; i++) {
        const reply = await client().request(path, { method: 'PATCH', token, body: { password: 'new-password-1', currentPassword: 'guess-number-' + i } });
        expect(reply.status).toBe(401);
      }
      expect((await client().get(`${CLIENT}/current-api-session`, token)).status).toBe(401);
      expect((await login(user.username, user.password)).status).toBe(401);
    });
  });

  describe('partially authenticated sessions', () => {
    it('a session with MFA outstanding may only finish it, look at itself and log out', async () => {
      const policy = await fixtures().createAuthPolicy({ requireTotp: true });
      const user = await newUser({ authPolicyId: policy });
      const reply = await login(user.username, user.password);
      expect(reply.status).toBe(200);
      expect(reply.body.data.authQueries).toEqual([
        { typeId: 'MFA', provider: 'ziti', format: 'alphaNumeric', httpMethod: 'POST', httpUrl: './authenticate/mfa', minLength: 4, maxLength: 6, scopes: null },
      ]);
      expect(reply.body.data.isMfaRequired).toBe(false);
      const token = reply.body.data.token;
      const session = await client().get(`${CLIENT}/current-api-session`, token);
      expect(session.status).toBe(200);
      expect(session.body.data.authQueries).toHaveLength(1);
      for (const path of [`${CLIENT}/current-identity`, `${CLIENT}/services`, `${MGMT}/current-identity/authenticators`]) {
        const denied = await client().get(path, token);
        expect(denied.status, path).toBe(401);
        expect(denied.body.error.code).toBe('UNAUTHORIZED');
      }
      const out = await client().request(`${CLIENT}/current-api-session`, { method: 'DELETE', token });
      expect(out.status).toBe(200);
      expect((await client().get(`${CLIENT}/current-api-session`, token)).status).toBe(401);
    });

    it('a partially authenticated admin is not an admin', async () => {
      const policy = await fixtures().createAuthPolicy({ requireTotp: true });
      const admin = await newUser({ authPolicyId: policy, isAdmin: true });
      const token = (await login(admin.username, admin.password, MGMT)).body.data.token;
      expect((await client().get(`${MGMT}/current-api-session`, token)).status).toBe(200);
      for (const path of ['/identities', '/api-sessions', '/auth-policies']) {
        expect((await client().get(`${MGMT}${path}`, token)).status, path).toBe(401);
      }
      // Fully authenticated, the same kind of identity is an admin.
      const full = await newUser({ isAdmin: true });
      const fullToken = (await login(full.username, full.password, MGMT)).body.data.token;
      expect((await client().get(`${MGMT}/api-sessions`, fullToken)).status).toBe(200);
    });
  });

  describe('failed-attempt throttle', () => {
    it('answers 429 after 10 failures from one address for one username, before checking the password', async () => {
      const user = await newUser();
      const ip = freshIp();
      for (let i = 0; i < 10; i++) expect((await login(user.username, 'wrong-password', CLIENT, ip)).status).toBe(401);
      const throttled = await login(user.username, user.password, CLIENT, ip);
      expect(throttled.status).toBe(429);
      expect(throttled.body.error.code).toBe('SERVER_TOO_MANY_REQUESTS');
      // Another address is not affected, and neither is an unknown username from the first one.
      expect((await login(user.username, user.password, CLIENT, freshIp())).status).toBe(200);
      expect((await login(unique('nobody'), 'wrong-password', CLIENT, ip)).status).toBe(401);
    });
  });

  describe('management API sessions', () => {
    it('lists, details and deletes API sessions, showing only the caller\'s own token', async () => {
      const user = await newUser();
      const userLogin = await login(user.username, user.password);
      const userToken = userLogin.body.data.token;
      const userSessionId = userLogin.body.data.id;
      const adminLogin = await client().request(`${MGMT}/authenticate?method=password`, { body: { username: 'admin', password: ADMIN_PASSWORD } });
      const admin = adminLogin.body.data.token;

      const list = await client().get(`${MGMT}/api-sessions?filter=${encodeURIComponent(`identity = "${user.identityId}"`)}`, admin);
      expect(list.status).toBe(200);
      expect(conformance('management', 'listAPISessions', 200, list.body)).toEqual([]);
      expect(list.body.meta.pagination).toEqual({ limit: 10, offset: 0, totalCount: 1 });
      expect(list.body.meta.filterableFields).toEqual(expect.arrayContaining(['identity', 'ipAddress', 'lastActivityAt', 'mfaRequired']));
      expect(list.body.meta.filterableFields).not.toContain('token');
      // The Admin Console's "last activity" column filter (`lastActivity`, beside the controller's `lastActivityAt`).
      const since = `datetime(${new Date(Date.now() - 60_000).toISOString()})`;
      const recent = await client().get(`${MGMT}/api-sessions?filter=${encodeURIComponent(`identity = "${user.identityId}" and lastActivity >= ${since} and lastActivityAt >= ${since}`)}`, admin);
      expect(recent.body.data.map((s: { id: string }) => s.id)).toEqual([userSessionId]);
      const [item] = list.body.data;
      expect(item).toMatchObject({ id: userSessionId, identityId: user.identityId, authQueries: [], isMfaRequired: false, isMfaComplete: false });
      expect(item.identity).toMatchObject({ id: user.identityId, entity: 'identities' });
      expect(item).not.toHaveProperty('expiresAt');
      expect(item).not.toHaveProperty('expirationSeconds');
      expect(item.token).toBe('');
      expect(list.text).not.toContain(userToken);

      const own = await client().get(`${MGMT}/api-sessions/${adminLogin.body.data.id}`, admin);
      expect(own.status).toBe(200);
      expect(conformance('management', 'detailAPISessions', 200, own.body)).toEqual([]);
      expect(own.body.data.token).toBe(admin);

      const paged = await client().get(`${MGMT}/api-sessions?limit=1&offset=0`, admin);
      expect(paged.body.data).toHaveLength(1);
      expect(paged.body.meta.pagination.limit).toBe(1);
      expect(paged.body.meta.pagination.totalCount).toBeGreaterThanOrEqual(2);
      const byToken = await client().get(`${MGMT}/api-sessions?filter=${encodeURIComponent(`token contains "a"`)}`, admin);
      expect(byToken.status).toBe(400);
      expect(byToken.body.error.code).toBe('INVALID_FILTER');

      const detail = await client().get(`${MGMT}/api-sessions/${userSessionId}`, admin);
      expect(detail.status).toBe(200);
      expect(detail.body.data.id).toBe(userSessionId);
      expect(detail.body.data.token).toBe('');

      const del = await client().request(`${MGMT}/api-sessions/${userSessionId}`, { method: 'DELETE', token: admin });
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ data: {}, meta: {} });
      expect((await client().get(`${CLIENT}/current-api-session`, userToken)).status).toBe(401);
      for (const method of ['GET', 'DELETE']) {
        const gone = await client().request(`${MGMT}/api-sessions/${userSessionId}`, { method, token: admin });
        expect(gone.status, method).toBe(404);
        expect(gone.body.error.code).toBe('NOT_FOUND');
      }
    });
  });
}
