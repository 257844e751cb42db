import { eq } from 'drizzle-orm';
import { URI, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { apiSessionPosture, failedServiceRequests, postureResponses } from '../../src/db/schema/index.js';
import type { Deps } from '../../src/deps.js';
import { evaluatePolicies, postureChecksExist, recordFailedServiceRequest, type PolicyPosture } from '../../src/posture/evaluate.js';
import { CLIENT } from '../helpers/client.js';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ClientOperations } from '../helpers/typed-api.js';
import { storeFixtures, unique } from './auth-fixtures.js';
import { expectError, expectFieldError, freshIp, uniqueName } from './identities.suite.js';
import { adminWithPostureChecks } from './posture-checks.suite.js';
import type { Suite } from './suite.js';

/** Passwords this suite uses: the Node collector checks that no reply or log line carries them. */
export const secrets = ['posture-Passw0rd!'];

const ZERO_TIME = '0001-01-01T00:00:00.000Z';
const MINUTE = 60_000;

/** Successive TOTP codes of an enrolment (each step once: replays are refused). */
function totp(url: string) {
  const t = URI.parse(url) as TOTP;
  const start = Date.now() - 30_000;
  let next = 0;
  return () => t.generate({ timestamp: start + 30_000 * next++ });
}

/**
 * Posture responses (reference model-and-policies §7.2), their evaluation (§7.3, §4.4) through the
 * evaluator other modules call, the identity posture views (§7.5) and failed service requests (§7.6).
 * Responses go over HTTP; `evaluatePolicies` then runs against the same store the app uses.
 */
const postureResponsesSuite: Suite = ({ client, db }) => {
  const { admin, checks } = adminWithPostureChecks(client);

  /** The app's store with a clock `offset` ms ahead: timeouts and grace periods without waiting. */
  const deps = (offset = 0) => ({ db: db(), now: () => Date.now() + offset }) as unknown as Deps;
  const id = (reply: { data?: { id?: string | null } | null }) => reply.data!.id!;

  interface User {
    identityId: string;
    apiSessionId: string;
    token: string;
    api: TypedApi<ClientOperations>;
    login(sdkInfo?: Record<string, string>): Promise<User>;
  }

  async function newUser(sdkInfo?: Record<string, string>): Promise<User> {
    const username = unique('posture');
    const password = 'posture-Passw0rd!';
    const { identityId } = await storeFixtures(db()).createUser({ username, password, name: unique('device') });
    const login = async (info?: Record<string, string>): Promise<User> => {
      const reply = await client().request(`${CLIENT}/authenticate?method=password`, { body: { username, password, ...(info ? { sdkInfo: info } : {}) }, headers: { 'x-forwarded-for': freshIp() } });
      expect(reply.status, reply.text).toBe(200);
      const token = reply.body.data.token as string;
      return { identityId, apiSessionId: reply.body.data.id as string, token, api: new TypedApi<ClientOperations>(client, 'client', () => token), login };
    };
    return login(sdkInfo);
  }

  /** Enrols and verifies TOTP on the user's session: the session has passed MFA from then on. Returns a code source. */
  async function passMfa(user: User) {
    await user.api.ok('enrollMfa');
    const code = totp((await user.api.ok('detailMfa')).data.provisioningUrl!);
    expect((await user.api.call('verifyMfa', { body: { code: code() } })).status).toBe(200);
    return code;
  }

  async function check(body: Record<string, unknown>): Promise<string> {
    const checkId = id(await admin.ok('createPostureCheck', { body: { name: uniqueName('pc'), ...body } as never }));
    checks.push(checkId);
    return checkId;
  }

  /** A Dial policy giving the identity a new service, with the checks as its posture-check roles. */
  async function policyFor(identityId: string, checkIds: string[]) {
    const serviceId = id(await admin.ok('createService', { body: { name: uniqueName('svc'), encryptionRequired: true } }));
    const policyId = id(
      await admin.ok('createServicePolicy', {
        body: { name: uniqueName('sp'), type: 'Dial', semantic: 'AllOf', identityRoles: [`@${identityId}`], serviceRoles: [`@${serviceId}`], postureCheckRoles: checkIds.map((c) => `@${c}`) },
      }),
    );
    return { policyId, serviceId };
  }

  async function evaluate(user: User, policyId: string, offset = 0): Promise<PolicyPosture> {
    const result = await evaluatePolicies(deps(offset), user.identityId, user.apiSessionId, [policyId]);
    return result.get(policyId)!;
  }

  /** A user, one check of the body's type and a policy linking them. */
  async function scenario(checkBody: Record<string, unknown>, sdkInfo?: Record<string, string>) {
    const user = await newUser(sdkInfo);
    const checkId = await check(checkBody);
    const { policyId, serviceId } = await policyFor(user.identityId, [checkId]);
    return { user, checkId, policyId, serviceId, passing: async (offset = 0) => (await evaluate(user, policyId, offset)).isPassing };
  }

  const respond = (user: User, body: Record<string, unknown>) => user.api.call('createPostureResponse', { body: body as never });
  const respondOk = async (user: User, body: Record<string, unknown>) => {
    const reply = await respond(user, body);
    expect(reply.status, reply.text).toBe(201);
    return reply;
  };
  const postureData = async (identityId: string) => expectConforms(await admin.call('getIdentityPostureData', { path: { id: identityId } }), 'getIdentityPostureData').body.data;

  describe('submitting posture', () => {
    it('stores single (201) and bulk (200) responses of every type, replaced on resubmission, and shows them as posture data', async () => {
      const user = await newUser({ type: 'ziti-sdk-c', version: '1.2.3', appId: 'tunneler' });
      const single = expectConforms(await respondOk(user, { id: 'os-check', typeId: 'OS', type: 'Linux', version: '5.15.0', build: 'b1' }), 'createPostureResponse', 'client');
      expect(single.body).toEqual({ data: { services: [] }, meta: {} });
      const bulk = await user.api.call('createPostureResponseBulk', {
        body: [
          { id: 'mac-check', typeId: 'MAC', macAddresses: ['AA:BB:CC:00:11:22', 'de-ad-be-ef-00-01'] },
          { id: 'domain-check', typeId: 'DOMAIN', domain: 'Corp.Example' },
          // The specification requires a `process` property PROCESS responses never carry: not required here, as by the controller.
          { id: 'proc-check', typeId: 'PROCESS', path: '/usr/bin/agent', isRunning: true, hash: 'ABCDEF', signerFingerprints: ['AA:BB'] },
          // ENDPOINT_STATE is not in the specification's typeId enum, yet SDKs send it.
          { id: 'state', typeId: 'ENDPOINT_STATE', woken: true },
        ] as never,
      });
      expectConforms(bulk, 'createPostureResponseBulk', 'client');
      expect(bulk.status).toBe(200);
      let data = await postureData(user.identityId);
      expect(data.os).toMatchObject({ type: 'Linux', version: '5.15.0', build: 'b1', postureCheckId: 'os-check', timedOut: false });
      expect(data.mac).toMatchObject({ addresses: ['aabbcc001122', 'deadbeef0001'], postureCheckId: 'mac-check' });
      expect(data.domain).toMatchObject({ domain: 'Corp.Example' });
      expect(data.processes).toEqual([expect.objectContaining({ postureCheckId: 'proc-check', isRunning: true, binaryHash: 'abcdef', signerFingerprints: ['aabb'] })]);
      const session = data.apiSessionPostureData[user.apiSessionId];
      expect(session.mfa).toMatchObject({ apiSessionId: user.apiSessionId, passedMfa: false, passedAt: ZERO_TIME });
      expect(session.endpointState!.wokenAt).not.toBe(ZERO_TIME);
      expect(session.endpointState!.unlockedAt).toBe(ZERO_TIME);
      expect(session.sdkInfo).toMatchObject({ type: 'ziti-sdk-c', version: '1.2.3', appId: 'tunneler' });
      await respondOk(user, { id: 'os-check-2', typeId: 'OS', type: 'Linux', version: '6.1.0' });
      data = await postureData(user.identityId);
      expect(data.os).toMatchObject({ version: '6.1.0', build: '', postureCheckId: 'os-check-2' });
      // Another instance sees the same: the data lives in the store, one row per kind.
      const rows = await db().select().from(postureResponses).where(eq(postureResponses.identityId, user.identityId));
      expect(rows.map((r) => r.kind).sort()).toEqual(['DOMAIN', 'MAC', 'OS', 'PATH', 'PROCESS']);
    });

    it('answers 200 with empty data for an identity that never reported (or does not exist)', async () => {
      const data = await postureData('no-such-identity');
      expect(data).toEqual({
        os: { lastUpdatedAt: ZERO_TIME, postureCheckId: '', timedOut: false, type: '', version: '', build: '' },
        mac: { lastUpdatedAt: ZERO_TIME, postureCheckId: '', timedOut: false, addresses: [] },
        domain: { lastUpdatedAt: ZERO_TIME, postureCheckId: '', timedOut: false, domain: '' },
        processes: [],
        apiSessionPostureData: {},
      });
      expect((await admin.ok('getIdentityFailedServiceRequests', { path: { id: 'no-such-identity' } })).data).toEqual([]);
    });

    it('refuses bad input with a 4xx and stores nothing', async () => {
      const user = await newUser();
      expectError(await respond(user, { id: 'x', typeId: 'BOGUS' }), 400, 'COULD_NOT_VALIDATE');
      expectFieldError(await respond(user, { id: 'x', typeId: 'OS', type: 'Linux' }), 400, 'version');
      expectFieldError(await respond(user, { typeId: 'DOMAIN', domain: 'x' }), 400, 'id');
      expectFieldError(await respond(user, { id: 'x', typeId: 'MAC', macAddresses: Array.from({ length: 300 }, () => 'aa') }), 400, 'postureResponse.macAddresses');
      expectFieldError(await respond(user, { id: 'x', typeId: 'DOMAIN', domain: 'a'.repeat(5000) }), 400, 'postureResponse.domain');
      expectFieldError(await user.api.call('createPostureResponseBulk', { body: { id: 'x', typeId: 'DOMAIN', domain: 'x' } as never }), 400, 'postureResponse');
      expectFieldError(await user.api.call('createPostureResponseBulk', { body: Array.from({ length: 101 }, () => ({ id: 'x', typeId: 'DOMAIN', domain: 'x' })) as never }), 400, 'postureResponse');
      expectError(await user.api.call('createPostureResponseBulk', { body: [{ id: 'x', typeId: 'DOMAIN', domain: 'ok' }, { id: 'y', typeId: 'MAC' }] as never }), 400, 'COULD_NOT_VALIDATE');
      expectError(await client().request(`${CLIENT}/posture-response`, { body: { id: 'x', typeId: 'DOMAIN', domain: 'x' } }), 401, 'UNAUTHORIZED');
      expect(await db().select().from(postureResponses).where(eq(postureResponses.identityId, user.identityId))).toEqual([]);
    });

    it('keeps at most 100 PROCESS records per identity, the most recent', async () => {
      const user = await newUser();
      const body = Array.from({ length: 100 }, (_, i) => ({ id: `check-${i}`, typeId: 'PROCESS', path: `/p/${i}`, isRunning: true }));
      expect((await user.api.call('createPostureResponseBulk', { body: body as never })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 5));
      expect((await user.api.call('createPostureResponseBulk', { body: [{ id: 'check-new', typeId: 'PROCESS', path: '/p/new', isRunning: true }] as never })).status).toBe(200);
      const rows = await db().select().from(postureResponses).where(eq(postureResponses.identityId, user.identityId));
      expect(rows.filter((r) => r.kind === 'PROCESS')).toHaveLength(100);
      expect(rows.filter((r) => r.kind === 'PATH')).toHaveLength(100);
      expect(rows.some((r) => r.key === 'check-new')).toBe(true);
    });
  });

  describe('evaluation (§7.3)', () => {
    it('OS: the reported type case-insensitively, its version against the ranges; no data fails; a repeated type, the later entry wins', async () => {
      const s = await scenario({ typeId: 'OS', operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041 <11.0.0', '>=11.0.22000'] }, { type: 'Linux', versions: [] }] });
      const none = await evaluate(s.user, s.policyId);
      expect(none).toMatchObject({ isPassing: false, failures: [{ id: s.checkId, typeId: 'OS', isPassing: false }] });
      expect(none.failureDetails[0]).toMatchObject({ postureCheckType: 'OS', actualValue: { type: '', version: '' } });
      const cases: [string, string, boolean][] = [
        ['Linux', 'anything at all', true],
        ['linux', '5.15.0', true],
        ['Windows', '10.0.19000', false],
        ['Windows', '10.0.19045', true],
        ['windows', '10.0.19045', true],
        ['Windows', '10.5.0', true],
        ['Windows', '11.0.21000', false],
        ['Windows', '11.0.22631', true],
        ['Windows', '10', false],
        ['macOS', '14.0.0', false],
      ];
      for (const [type, version, passing] of cases) {
        await respondOk(s.user, { id: s.checkId, typeId: 'OS', type, version });
        expect(await s.passing(), `${type} ${version}`).toBe(passing);
      }
      const later = await scenario({ typeId: 'OS', operatingSystems: [{ type: 'Windows', versions: ['>=99.0.0'] }, { type: 'Windows', versions: [] }] });
      await respondOk(later.user, { id: later.checkId, typeId: 'OS', type: 'Windows', version: '10.0.0' });
      expect(await later.passing()).toBe(true);
    });

    it('MAC: any reported address, normalised, among the configured; DOMAIN: equal case-insensitively', async () => {
      const mac = await scenario({ typeId: 'MAC', macAddresses: ['AA:BB:CC:DD:EE:FF'] });
      expect(await mac.passing()).toBe(false);
      await respondOk(mac.user, { id: mac.checkId, typeId: 'MAC', macAddresses: ['11:22:33:44:55:66', 'aa-bb-cc-dd-ee-ff'] });
      expect(await mac.passing()).toBe(true);
      await respondOk(mac.user, { id: mac.checkId, typeId: 'MAC', macAddresses: ['11:22:33:44:55:66'] });
      expect(await mac.passing()).toBe(false);
      expect((await evaluate(mac.user, mac.policyId)).failureDetails[0]).toMatchObject({ actualValue: ['112233445566'], expectedValue: ['aabbccddeeff'] });

      const domain = await scenario({ typeId: 'DOMAIN', domains: ['Corp.Example', 'lab'] });
      expect(await domain.passing()).toBe(false);
      await respondOk(domain.user, { id: domain.checkId, typeId: 'DOMAIN', domain: 'corp.EXAMPLE' });
      expect(await domain.passing()).toBe(true);
      await respondOk(domain.user, { id: domain.checkId, typeId: 'DOMAIN', domain: 'corp' });
      expect(await domain.passing()).toBe(false);
    });

    it('PROCESS: the response for this check id, running, with a configured hash and signer fingerprint', async () => {
      const s = await scenario({ typeId: 'PROCESS', process: { osType: 'Linux', path: '/usr/bin/agent', hashes: ['ABCD', 'ef01'], signerFingerprint: 'FF:00' } });
      const send = (body: Record<string, unknown>) => respondOk(s.user, { typeId: 'PROCESS', path: '/usr/bin/agent', ...body });
      await send({ id: 'another-check', isRunning: true, hash: 'abcd', signerFingerprints: ['ff00'] });
      expect(await s.passing()).toBe(false);
      await send({ id: s.checkId, isRunning: false, hash: 'abcd', signerFingerprints: ['ff00'] });
      expect(await s.passing()).toBe(false);
      await send({ id: s.checkId, isRunning: true, hash: 'ABCD', signerFingerprints: ['00', 'FF:00'] });
      expect(await s.passing()).toBe(true);
      await send({ id: s.checkId, isRunning: true, hash: '9999', signerFingerprints: ['ff00'] });
      expect(await s.passing()).toBe(false);
      await send({ id: s.checkId, isRunning: true, hash: 'ef01', signerFingerprints: ['0000'] });
      expect(await s.passing()).toBe(false);
      expect((await evaluate(s.user, s.policyId)).failureDetails[0]).toMatchObject({ actualValue: { hash: 'ef01', isRunning: true, signerFingerprints: ['0000'] }, expectedValue: { path: '/usr/bin/agent', hashes: ['abcd', 'ef01'] } });

      const plain = await scenario({ typeId: 'PROCESS', process: { osType: 'Windows', path: 'C:\\a.exe' } });
      await respondOk(plain.user, { id: plain.checkId, typeId: 'PROCESS', path: 'C:\\a.exe', isRunning: true });
      expect(await plain.passing()).toBe(true);
    });

    it('PROCESS_MULTI: responses found by path; AllOf needs every entry, AnyOf one; an empty path fails AllOf and is skipped by AnyOf', async () => {
      const all = await scenario({ typeId: 'PROCESS_MULTI', semantic: 'AllOf', processes: [{ osType: 'Linux', path: '/a' }, { osType: 'Linux', path: '/b', hashes: ['BB'], signerFingerprints: ['CC'] }] });
      const send = (body: Record<string, unknown>) => respondOk(all.user, { id: all.checkId, typeId: 'PROCESS', isRunning: true, ...body });
      await send({ path: '/a' });
      expect(await all.passing()).toBe(false);
      await send({ path: '/b', hash: 'bb', signerFingerprints: ['cc'] });
      expect(await all.passing()).toBe(true);
      await send({ path: '/b', hash: 'bb', signerFingerprints: ['cc'], isRunning: false });
      expect(await all.passing()).toBe(false);
      const failed = (await evaluate(all.user, all.policyId)).failureDetails[0];
      expect(failed).toMatchObject({ postureCheckType: 'PROCESS_MULTI', semantic: 'AllOf', actualValue: [{ path: '/a', isRunning: true }, { path: '/b', isRunning: false }] });

      const any = await scenario({ typeId: 'PROCESS_MULTI', semantic: 'AnyOf', processes: [{ osType: 'Linux', path: '' }, { osType: 'Linux', path: '/x' }, { osType: 'Linux', path: '/y', hashes: ['11'] }] });
      expect(await any.passing()).toBe(false);
      await respondOk(any.user, { id: 'whatever', typeId: 'PROCESS', path: '/y', isRunning: true, hash: '22' });
      expect(await any.passing()).toBe(false);
      await respondOk(any.user, { id: 'whatever', typeId: 'PROCESS', path: '/x', isRunning: true });
      expect(await any.passing()).toBe(true);

      const emptyPath = await scenario({ typeId: 'PROCESS_MULTI', semantic: 'AllOf', processes: [{ osType: 'Linux', path: '' }] });
      await respondOk(emptyPath.user, { id: emptyPath.checkId, typeId: 'PROCESS', path: '', isRunning: true });
      expect(await emptyPath.passing()).toBe(false);
    });

    it('MFA: passed on this API session, within its timeout; timeout and timeoutRemaining as §7.3 says', async () => {
      const user = await newUser();
      const noTimeout = await check({ typeId: 'MFA' });
      const timed = await check({ typeId: 'MFA', timeoutSeconds: 600 });
      const p1 = (await policyFor(user.identityId, [noTimeout])).policyId;
      const p2 = (await policyFor(user.identityId, [timed])).policyId;
      const both = async (offset = 0) => evaluatePolicies(deps(offset), user.identityId, user.apiSessionId, [p1, p2]);
      let r = await both();
      expect(r.get(p1)!.postureQueries[0]).toMatchObject({ id: noTimeout, queryType: 'MFA', isPassing: false, timeout: -1, timeoutRemaining: -1 });
      expect(r.get(p2)!.postureQueries[0]).toMatchObject({ id: timed, isPassing: false, timeout: 600, timeoutRemaining: 0 });
      expect(r.get(p2)!.failureDetails[0]).toMatchObject({ actualValue: { passedMfa: false, timedOut: true }, expectedValue: { passedMfa: true, timedOut: false }, criteria: { passedMfaAt: ZERO_TIME, timeoutSeconds: 600 } });
      await passMfa(user);
      r = await both();
      expect(r.get(p1)!.isPassing).toBe(true);
      expect(r.get(p2)!.isPassing).toBe(true);
      expect(r.get(p2)!.postureQueries[0].timeoutRemaining).toBeGreaterThanOrEqual(590);
      expect(r.get(p2)!.postureQueries[0].timeoutRemaining).toBeLessThanOrEqual(600);
      // Ten minutes on: the timed check has expired, the other still passes.
      r = await both(601_000);
      expect(r.get(p1)!.isPassing).toBe(true);
      expect(r.get(p2)!.isPassing).toBe(false);
      expect(r.get(p2)!.postureQueries[0].timeoutRemaining).toBe(0);
      expect(r.get(p2)!.failureDetails[0]).toMatchObject({ actualValue: { passedMfa: true, timedOut: true } });
      // Another API session of the same identity has not passed MFA.
      const other = await user.login();
      expect((await evaluate(other, p1)).isPassing).toBe(false);
    });

    it('MFA promptOnWake / promptOnUnlock: a wake or unlock after MFA passes for a 5-minute grace, then fails; the query moves updatedAt', async () => {
      const user = await newUser();
      const wake = await check({ typeId: 'MFA', promptOnWake: true });
      const unlock = await check({ typeId: 'MFA', promptOnUnlock: true, timeoutSeconds: 3600 });
      const { policyId: pw, serviceId } = await policyFor(user.identityId, [wake]);
      const { policyId: pu } = await policyFor(user.identityId, [unlock]);
      await passMfa(user);
      expect((await evaluate(user, pw, 10 * MINUTE)).isPassing).toBe(true);
      const checkUpdatedAt = (await admin.ok('detailPostureCheck', { path: { id: wake } })).data.updatedAt;

      // A wake after MFA: the response names the services whose MFA timers restart.
      await new Promise((r) => setTimeout(r, 5));
      const woke = expectConforms(await respondOk(user, { id: 'state', typeId: 'ENDPOINT_STATE', woken: true }), 'createPostureResponse', 'client');
      expect(woke.body.data.services).toContainEqual({ id: serviceId, name: expect.any(String), postureQueryType: 'MFA', timeout: -1, timeoutRemaining: 300 });
      const now = await evaluate(user, pw);
      expect(now.isPassing).toBe(true);
      expect(Date.parse(now.postureQueries[0].updatedAt)).toBeGreaterThan(Date.parse(checkUpdatedAt));
      expect((await evaluate(user, pw, 4 * MINUTE)).isPassing).toBe(true);
      expect((await evaluate(user, pw, 6 * MINUTE)).isPassing).toBe(false);
      expect((await evaluate(user, pw, 6 * MINUTE)).failureDetails[0]).toMatchObject({ actualValue: { passedMfa: true, passedOnWake: false }, expectedValue: { passedOnWake: true } });
      // The unlock check ignores wakes.
      expect((await evaluate(user, pu, 6 * MINUTE)).isPassing).toBe(true);

      await respondOk(user, { id: 'state', typeId: 'ENDPOINT_STATE', unlocked: true });
      const unlocked = (await evaluate(user, pu)).postureQueries[0];
      expect(unlocked.isPassing).toBe(true);
      expect(unlocked.timeoutRemaining).toBeGreaterThanOrEqual(295);
      expect(unlocked.timeoutRemaining).toBeLessThanOrEqual(300);
      const late = (await evaluate(user, pu, 6 * MINUTE)).postureQueries[0];
      expect(late).toMatchObject({ isPassing: false, timeoutRemaining: 0 });

    });

    it('MFA promptOnWake: a wake before MFA was passed does not count', async () => {
      const s = await scenario({ typeId: 'MFA', promptOnWake: true });
      await respondOk(s.user, { id: 'state', typeId: 'ENDPOINT_STATE', woken: true });
      await new Promise((r) => setTimeout(r, 5));
      await passMfa(s.user);
      expect(await s.passing(10 * MINUTE)).toBe(true);
    });

    it('MFA timeoutRemaining with ignoreLegacyEndpoints: -1 for legacy clients (no SDK info, C SDK before 0.25.0, other SDKs)', async () => {
      const body = { typeId: 'MFA', timeoutSeconds: 900, ignoreLegacyEndpoints: true };
      for (const [sdkInfo, legacy] of [
        [undefined, true],
        [{ type: 'ziti-sdk-c', version: '0.24.9' }, true],
        [{ type: 'ziti-sdk-golang', version: '1.0.0' }, true],
        [{ type: 'ziti-sdk-c', version: 'not-a-version' }, true],
        [{ type: 'ziti-sdk-c', version: '0.25.0' }, false],
        [{ type: 'ziti-sdk-c', version: '1.4.2' }, false],
      ] as const) {
        const s = await scenario(body, sdkInfo as Record<string, string> | undefined);
        await passMfa(s.user);
        const q = (await evaluate(s.user, s.policyId)).postureQueries[0];
        expect(q.isPassing).toBe(true);
        if (legacy) expect(q.timeoutRemaining, JSON.stringify(sdkInfo)).toBe(-1);
        else expect(q.timeoutRemaining, JSON.stringify(sdkInfo)).toBeGreaterThan(880);
      }
    });

    it('MFA: removing the enrolment makes every session fail MFA checks', async () => {
      const s = await scenario({ typeId: 'MFA' });
      const code = await passMfa(s.user);
      expect(await s.passing()).toBe(true);
      expect((await s.user.api.call('deleteMfa', { headers: { 'mfa-validation-code': code() } })).status).toBe(200);
      expect(await s.passing()).toBe(false);
    });

    it('aggregates per policy: all checks must pass, each check evaluated once; policies without checks pass', async () => {
      const user = await newUser();
      const dom = await check({ typeId: 'DOMAIN', domains: ['corp'] });
      const mfa = await check({ typeId: 'MFA' });
      const two = (await policyFor(user.identityId, [dom, mfa])).policyId;
      const one = (await policyFor(user.identityId, [dom])).policyId;
      const none = (await policyFor(user.identityId, [])).policyId;
      await respondOk(user, { id: dom, typeId: 'DOMAIN', domain: 'corp' });
      const r = await evaluatePolicies(deps(), user.identityId, user.apiSessionId, [two, one, none, 'no-such-policy', two]);
      expect([...r.keys()].sort()).toEqual([two, one, none, 'no-such-policy'].sort());
      expect(r.get(two)).toMatchObject({ policyId: two, isPassing: false, failures: [{ id: mfa, typeId: 'MFA', isPassing: false }] });
      expect(r.get(two)!.postureQueries.map((q) => [q.id, q.isPassing]).sort()).toEqual([[dom, true], [mfa, false]].sort());
      expect(r.get(one)).toMatchObject({ isPassing: true, failures: [] });
      expect(r.get(none)).toEqual({ policyId: none, isPassing: true, postureQueries: [], failures: [], failureDetails: [] });
      expect(r.get('no-such-policy')!.isPassing).toBe(true);
      const q = r.get(one)!.postureQueries[0];
      expect(q).toMatchObject({ id: dom, queryType: 'DOMAIN', isPassing: true, timeout: -1, timeoutRemaining: -1, process: null, processes: null, _links: { self: { href: `./posture-checks/${dom}` } } });
      expect((await evaluatePolicies(deps(), user.identityId, user.apiSessionId, [])).size).toBe(0);
      const total = (await admin.ok('listPostureChecks', { query: { limit: 1 } })).meta.pagination!.totalCount;
      expect(await postureChecksExist(db())).toBe(total > 0);
    });

    it('renders the process paths of PROCESS and PROCESS_MULTI queries', async () => {
      const user = await newUser();
      const proc = await check({ typeId: 'PROCESS', process: { osType: 'macOS', path: '/Applications/A.app', hashes: ['aa'] } });
      const multi = await check({ typeId: 'PROCESS_MULTI', semantic: 'AnyOf', processes: [{ osType: 'Linux', path: '/x', hashes: ['bb'] }, { osType: 'Windows', path: 'C:\\y.exe' }] });
      const { policyId } = await policyFor(user.identityId, [proc, multi]);
      const queries = Object.fromEntries((await evaluate(user, policyId)).postureQueries.map((q) => [q.id, q]));
      expect(queries[proc]).toMatchObject({ queryType: 'PROCESS', process: { osType: 'macOS', path: '/Applications/A.app' }, processes: null });
      expect(queries[multi]).toMatchObject({ queryType: 'PROCESS_MULTI', process: null, processes: [{ osType: 'Linux', path: '/x' }, { osType: 'Windows', path: 'C:\\y.exe' }] });
    });
  });

  describe('wake and unlock answers (§7.2)', () => {
    it('list only services the caller reaches through a policy with a prompting MFA check, and only after MFA', async () => {
      const user = await newUser();
      const stranger = await newUser();
      const wake = await check({ typeId: 'MFA', promptOnWake: true, timeoutSeconds: 1200 });
      const short = await check({ typeId: 'MFA', promptOnWake: true, timeoutSeconds: 200 });
      const unlockOnly = await check({ typeId: 'MFA', promptOnUnlock: true });
      const mine = await policyFor(user.identityId, [wake]);
      const shortOne = await policyFor(user.identityId, [short]);
      const unlockService = await policyFor(user.identityId, [unlockOnly]);
      const theirs = await policyFor(stranger.identityId, [wake]);
      // Before MFA: nothing to restart.
      expect((await respondOk(user, { id: 's', typeId: 'ENDPOINT_STATE', woken: true })).body.data.services).toEqual([]);
      await passMfa(user);
      const services = (await respondOk(user, { id: 's', typeId: 'ENDPOINT_STATE', woken: true })).body.data.services as { id: string; timeout: number; timeoutRemaining: number }[];
      const ids = services.map((s) => s.id);
      expect(ids).toContain(mine.serviceId);
      expect(services.find((s) => s.id === mine.serviceId)).toMatchObject({ timeout: 1200, timeoutRemaining: 300 });
      // A timeout the grace period would not shorten, an unlock-only check, another identity's service: absent.
      expect(ids).not.toContain(shortOne.serviceId);
      expect(ids).not.toContain(unlockService.serviceId);
      expect(ids).not.toContain(theirs.serviceId);
      const unlocked = (await respondOk(user, { id: 's', typeId: 'ENDPOINT_STATE', unlocked: true })).body.data.services.map((s: { id: string }) => s.id);
      expect(unlocked).toContain(unlockService.serviceId);
      expect(unlocked).not.toContain(mine.serviceId);
      expect((await respondOk(user, { id: 's', typeId: 'ENDPOINT_STATE', woken: false, unlocked: false })).body.data.services).toEqual([]);
    });
  });

  describe('with services and sessions', () => {
    it('posture responses flip session creation from 409 to 201 and back; the service list shows the evaluated queries', async () => {
      const s = await scenario({ typeId: 'DOMAIN', domains: ['corp.example'] });
      const routerId = id(await admin.ok('createEdgeRouter', { body: { name: uniqueName('er') } }));
      await admin.ok('createEdgeRouterPolicy', { body: { name: uniqueName('erp'), semantic: 'AnyOf', identityRoles: [`@${s.user.identityId}`], edgeRouterRoles: [`@${routerId}`] } });
      await admin.ok('createServiceEdgeRouterPolicy', { body: { name: uniqueName('serp'), semantic: 'AnyOf', serviceRoles: [`@${s.serviceId}`], edgeRouterRoles: [`@${routerId}`] } });
      const create = () => s.user.api.call('createSession', { body: { serviceId: s.serviceId, type: 'Dial' } });

      const refused = expectError(await create(), 409, 'INVALID_POSTURE');
      expect(refused.body.error.cause).toEqual({
        message: `Failed to pass posture checks for service policies: [${s.policyId}]`,
        data: { [s.policyId]: [{ id: s.checkId, typeId: 'DOMAIN', isPassing: false }] },
      });
      const failed = (await admin.ok('getIdentityFailedServiceRequests', { path: { id: s.user.identityId } })).data;
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ serviceId: s.serviceId, sessionType: 'Dial', policyFailures: [{ policyId: s.policyId, checks: [{ postureCheckId: s.checkId, actualValue: '', expectedValue: ['corp.example'] }] }] });
      const listed = (await s.user.api.ok('listServices', { query: { filter: `id = "${s.serviceId}"` } })).data[0];
      expect(listed.postureQueries).toEqual([{ policyId: s.policyId, policyType: 'Dial', isPassing: false, postureQueries: [expect.objectContaining({ id: s.checkId, queryType: 'DOMAIN', isPassing: false })] }]);

      await respondOk(s.user, { id: s.checkId, typeId: 'DOMAIN', domain: 'CORP.example' });
      const session = await create();
      expect(session.status, session.text).toBe(201);
      const shown = (await s.user.api.ok('detailService', { path: { id: s.serviceId } })).data;
      expect(shown.postureQueries[0]).toMatchObject({ policyId: s.policyId, isPassing: true });

      // Posture stops passing: the session is gone the next time it is read, and a new one is refused.
      await respondOk(s.user, { id: s.checkId, typeId: 'DOMAIN', domain: 'elsewhere' });
      expectError(await s.user.api.call('detailSession', { path: { id: session.body.data!.id } }), 404, 'NOT_FOUND');
      expectError(await create(), 409, 'INVALID_POSTURE');
      expect((await admin.ok('getIdentityFailedServiceRequests', { path: { id: s.user.identityId } })).data).toHaveLength(2);
    });

    /** The scenario with an edge router both policies of §3.3 c give the user and the service. */
    async function routedScenario(checkBody: Record<string, unknown>) {
      const s = await scenario(checkBody);
      const routerId = id(await admin.ok('createEdgeRouter', { body: { name: uniqueName('er') } }));
      await admin.ok('createEdgeRouterPolicy', { body: { name: uniqueName('erp'), semantic: 'AnyOf', identityRoles: [`@${s.user.identityId}`], edgeRouterRoles: [`@${routerId}`] } });
      await admin.ok('createServiceEdgeRouterPolicy', { body: { name: uniqueName('serp'), semantic: 'AnyOf', serviceRoles: [`@${s.serviceId}`], edgeRouterRoles: [`@${routerId}`] } });
      return { ...s, create: () => s.user.api.call('createSession', { body: { serviceId: s.serviceId, type: 'Dial' } }) };
    }

    it('a re-create on the same API session passes posture first: failing, it is refused and the first session ends', async () => {
      const s = await routedScenario({ typeId: 'DOMAIN', domains: ['corp.example'] });
      await respondOk(s.user, { id: s.checkId, typeId: 'DOMAIN', domain: 'corp.example' });
      const first = await s.create();
      expect(first.status, first.text).toBe(201);
      const again = await s.create();
      expect(again.status, again.text).toBe(201);
      expect(again.body.data).toMatchObject({ id: first.body.data!.id, token: first.body.data!.token });

      // Posture stops passing; the session is not read in between: the re-create is refused, not answered with it.
      await respondOk(s.user, { id: s.checkId, typeId: 'DOMAIN', domain: 'elsewhere' });
      expectError(await s.create(), 409, 'INVALID_POSTURE');
      expectError(await admin.call('detailSession', { path: { id: first.body.data!.id } }), 404, 'NOT_FOUND');

      // Passing again: a new session, not the ended one.
      await respondOk(s.user, { id: s.checkId, typeId: 'DOMAIN', domain: 'corp.example' });
      const next = await s.create();
      expect(next.status, next.text).toBe(201);
      expect(next.body.data!.id).not.toBe(first.body.data!.id);
    });

    it('a re-create whose first session was granted by a policy now failing gets a new session from the policy that passes', async () => {
      const s = await routedScenario({ typeId: 'DOMAIN', domains: ['corp.example'] });
      await respondOk(s.user, { id: s.checkId, typeId: 'DOMAIN', domain: 'corp.example' });
      const first = await s.create();
      expect(first.status, first.text).toBe(201);
      const otherCheck = await check({ typeId: 'MAC', macAddresses: ['aa:bb:cc:00:11:22'] });
      const other = id(
        await admin.ok('createServicePolicy', {
          body: { name: uniqueName('sp'), type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${s.user.identityId}`], serviceRoles: [`@${s.serviceId}`], postureCheckRoles: [`@${otherCheck}`] },
        }),
      );
      await respondOk(s.user, { id: otherCheck, typeId: 'MAC', macAddresses: ['AA:BB:CC:00:11:22'] });
      await respondOk(s.user, { id: s.checkId, typeId: 'DOMAIN', domain: 'elsewhere' });
      const next = await s.create();
      expect(next.status, next.text).toBe(201);
      expect(next.body.data!.id).not.toBe(first.body.data!.id);
      expectError(await admin.call('detailSession', { path: { id: first.body.data!.id } }), 404, 'NOT_FOUND');
      expect((await admin.ok('detailSession', { path: { id: next.body.data!.id } })).data.servicePolicies!.map((p) => p.id)).toEqual([other]);
    });
  });

  describe('failed service requests (§7.6)', () => {
    it('records what failed per policy, renders it as the specification declares, and keeps the latest 100', async () => {
      const s = await scenario({ typeId: 'MFA', timeoutSeconds: 60 });
      const passing = await policyFor(s.user.identityId, []);
      const evaluation = await evaluatePolicies(deps(), s.user.identityId, s.user.apiSessionId, [s.policyId, passing.policyId]);
      const request = (serviceName: string) => ({
        identityId: s.user.identityId,
        apiSessionId: s.user.apiSessionId,
        serviceId: s.serviceId,
        serviceName,
        sessionType: 'Dial' as const,
        policies: [
          { policyId: s.policyId, policyName: 'failing' },
          { policyId: passing.policyId, policyName: 'passing' },
        ],
        evaluation,
      });
      await recordFailedServiceRequest(deps(), request('first'));
      const listed = expectConforms(await admin.call('getIdentityFailedServiceRequests', { path: { id: s.user.identityId } }), 'getIdentityFailedServiceRequests');
      expect(listed.body.data).toHaveLength(1);
      expect(listed.body.data[0]).toMatchObject({
        apiSessionId: s.user.apiSessionId,
        serviceId: s.serviceId,
        serviceName: 'first',
        sessionType: 'Dial',
        policyFailures: [
          {
            policyId: s.policyId,
            policyName: 'failing',
            checks: [{ postureCheckId: s.checkId, postureCheckType: 'MFA', actualValue: { passedMfa: false }, criteria: { timeoutSeconds: 60, passedMfaAt: ZERO_TIME } }],
          },
        ],
      });
      expect(Date.parse(listed.body.data[0].when!)).toBeGreaterThan(Date.now() - MINUTE);
      for (let i = 0; i < 102; i++) await recordFailedServiceRequest(deps(), request(`n${i}`));
      const kept = (await admin.ok('getIdentityFailedServiceRequests', { path: { id: s.user.identityId } })).data;
      expect(kept).toHaveLength(100);
      expect(kept[0].serviceName).toBe('n2');
      expect(kept[99].serviceName).toBe('n101');
    });
  });

  describe('lifetime of posture data', () => {
    it('an API session takes its endpoint state and SDK info with it (logout, by trigger); the identity keeps its own data', async () => {
      const user = await newUser({ type: 'ziti-sdk-c', version: '1.0.0' });
      await respondOk(user, { id: 's', typeId: 'ENDPOINT_STATE', woken: true });
      await respondOk(user, { id: 'd', typeId: 'DOMAIN', domain: 'corp' });
      expect(await db().select().from(apiSessionPosture).where(eq(apiSessionPosture.apiSessionId, user.apiSessionId))).toHaveLength(1);
      expect((await user.api.call('deleteCurrentApiSession')).status).toBe(200);
      expect(await db().select().from(apiSessionPosture).where(eq(apiSessionPosture.apiSessionId, user.apiSessionId))).toEqual([]);
      const data = await postureData(user.identityId);
      expect(data.apiSessionPostureData).toEqual({});
      expect(data.domain.domain).toBe('corp');
    });

    it('deleting the identity clears its posture data, failed requests and sessions in the same batch', async () => {
      const s = await scenario({ typeId: 'MFA' });
      await respondOk(s.user, { id: 'd', typeId: 'DOMAIN', domain: 'corp' });
      await respondOk(s.user, { id: 's', typeId: 'ENDPOINT_STATE', unlocked: true });
      const evaluation = await evaluatePolicies(deps(), s.user.identityId, s.user.apiSessionId, [s.policyId]);
      await recordFailedServiceRequest(deps(), { identityId: s.user.identityId, apiSessionId: s.user.apiSessionId, serviceId: s.serviceId, serviceName: 'x', sessionType: 'Bind', policies: [{ policyId: s.policyId, policyName: 'p' }], evaluation });
      expect((await admin.call('deleteIdentity', { path: { id: s.user.identityId } })).status).toBe(200);
      expect(await db().select().from(postureResponses).where(eq(postureResponses.identityId, s.user.identityId))).toEqual([]);
      expect(await db().select().from(failedServiceRequests).where(eq(failedServiceRequests.identityId, s.user.identityId))).toEqual([]);
      expect(await db().select().from(apiSessionPosture).where(eq(apiSessionPosture.identityId, s.user.identityId))).toEqual([]);
      expect((await admin.ok('getIdentityFailedServiceRequests', { path: { id: s.user.identityId } })).data).toEqual([]);
    });

    it('a posture response moves the identity service-updates time (its posture queries may evaluate differently)', async () => {
      const user = await newUser();
      const before = (await user.api.ok('listServiceUpdates')).data.lastChangeAt;
      await new Promise((r) => setTimeout(r, 5));
      await respondOk(user, { id: 'd', typeId: 'DOMAIN', domain: 'corp' });
      const after = (await user.api.ok('listServiceUpdates')).data.lastChangeAt;
      expect(Date.parse(after)).toBeGreaterThan(Date.parse(before));
    });
  });
};

export default postureResponsesSuite;
