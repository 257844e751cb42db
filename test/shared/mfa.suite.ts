import { eq } from 'drizzle-orm';
import jsQR from 'jsqr';
import { URI, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { atomic } from '../../src/db/client.js';
import { apiSessions, identities, mfas } from '../../src/db/schema/index.js';
import { newSessionToken } from '../../src/auth/session-token.js';
import { cuid } from '../../src/lib/ids.js';
import { CLIENT, MGMT, type Reply } from '../helpers/client.js';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ClientOperations, type ManagementOperations } from '../helpers/typed-api.js';
import { storeFixtures, unique } from './auth-fixtures.js';
import type { Suite } from './suite.js';

/** Passwords this suite uses: the Node collector checks that no reply or log line carries them. */
export const secrets = ['mfa-Passw0rd!'];

const MFA_QUERY = { typeId: 'MFA', provider: 'ziti', format: 'alphaNumeric', httpMethod: 'POST', httpUrl: './authenticate/mfa', minLength: 4, maxLength: 6, scopes: null };

let ipCounter = 0;
/** A distinct documentation-range address per caller, so the failed-attempt throttle never couples tests. */
function freshIp(): string {
  ipCounter++;
  return `198.19.${Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`;
}

/**
 * TOTP codes from the provisioning URL by an independent implementation (otpauth), for successive time
 * steps: replays are refused, so every use needs a later step. Starting one step back leaves four steps
 * inside the controller's ±2 window even if the clock crosses a step boundary during the test.
 */
function authenticator(url: string) {
  const totp = URI.parse(url) as TOTP;
  expect(totp).toBeInstanceOf(TOTP);
  expect(totp.algorithm).toBe('SHA1');
  expect(totp.digits).toBe(6);
  expect(totp.period).toBe(30);
  const start = Date.now() - 30_000;
  let next = 0;
  return {
    secret: totp.secret.base32,
    /** The code of the next unused step. */
    code: () => totp.generate({ timestamp: start + 30_000 * next++ }),
    /** A code of a step far outside the window. */
    stale: () => totp.generate({ timestamp: Date.now() - 10 * 60_000 }),
  };
}

/** Decodes a PNG (8-bit greyscale or RGB(A), no interlace) into RGBA pixels with the platform's inflate. */
async function decodePng(bytes: Uint8Array): Promise<{ width: number; height: number; rgba: Uint8ClampedArray }> {
  expect([...bytes.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat: Uint8Array[] = [];
  while (at < bytes.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      expect(data[8]).toBe(8);
      colorType = data[9];
    }
    if (type === 'IDAT') idat.push(data);
    at += 12 + length;
  }
  const raw = new Uint8Array(await new Response(new Blob(idat as Uint8Array<ArrayBuffer>[]).stream().pipeThrough(new DecompressionStream('deflate'))).arrayBuffer());
  const channels = colorType === 0 ? 1 : colorType === 2 ? 3 : 4;
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    const row = y * (width * channels + 1);
    expect(raw[row]).toBe(0); // the writer uses filter 0
    for (let x = 0; x < width; x++) {
      const p = row + 1 + x * channels;
      const [r, g, b] = channels === 1 ? [raw[p], raw[p], raw[p]] : [raw[p], raw[p + 1], raw[p + 2]];
      rgba.set([r, g, b, 255], (y * width + x) * 4);
    }
  }
  return { width, height, rgba };
}

const mfaSuite: Suite = ({ client, db }) => {
  const fixtures = () => storeFixtures(db());
  const clientApi = (token: string) => new TypedApi<ClientOperations>(client, 'client', () => token);
  const mgmtApi = (token: string) => new TypedApi<ManagementOperations>(client, 'management', () => token);

  async function newUser(options: { isAdmin?: boolean; authPolicyId?: string } = {}) {
    const username = unique('mfa');
    const password = 'mfa-Passw0rd!';
    const name = unique('laptop');
    const ids = await fixtures().createUser({ username, password, name, ...options });
    const ip = freshIp();
    const login = async (api = CLIENT): Promise<Reply> => client().request(`${api}/authenticate?method=password`, { body: { username, password }, headers: { 'x-forwarded-for': ip } });
    const token = async () => {
      const reply = await login();
      expect(reply.status).toBe(200);
      return reply.body.data.token as string;
    };
    return { ...ids, username, name, ip, login, token };
  }

  function expectMfaError(reply: Reply, status: number, code: string) {
    expect(reply.status, reply.text).toBe(status);
    expect(reply.body.error.code).toBe(code);
  }

  /** Enrolls and verifies; returns the authenticator and the recovery codes shown during enrolment. */
  async function enrolled(user: Awaited<ReturnType<typeof newUser>>, token: string) {
    const api = clientApi(token);
    await api.ok('enrollMfa');
    const detail = (await api.ok('detailMfa')).data;
    const auth = authenticator(detail.provisioningUrl!);
    expect((await api.call('verifyMfa', { body: { code: auth.code() } })).status).toBe(200);
    return { auth, recoveryCodes: detail.recoveryCodes! };
  }

  /** Partial sessions written directly: fifty password logins would only measure hashing. */
  async function partialSessions(user: { identityId: string; authenticatorId: string }, count: number) {
    const now = Date.now();
    const sessions = await Promise.all(
      Array.from({ length: count }, async () => {
        const { token, tokenHash } = await newSessionToken();
        return { token, row: { id: cuid(), createdAt: now, updatedAt: now, tags: '{}', tokenHash, identityId: user.identityId, authenticatorId: user.authenticatorId, isMfaRequired: true, lastActivityAt: now } };
      }),
    );
    const store = db();
    await atomic(store, sessions.map((s) => store.insert(apiSessions).values(s.row)) as never);
    return sessions.map((s) => ({ id: s.row.id, token: s.token }));
  }

  /** Which of the sessions have completed MFA, by id. */
  async function completed(identityId: string, ids: string[]) {
    const rows = await db().select({ id: apiSessions.id, complete: apiSessions.isMfaComplete }).from(apiSessions).where(eq(apiSessions.identityId, identityId));
    const mine = rows.filter((r) => ids.includes(r.id));
    expect(mine).toHaveLength(ids.length);
    return mine.filter((r) => r.complete).map((r) => r.id);
  }

  async function authenticateMfa(token: string, code: string, ip?: string) {
    return clientApi(token).call('authenticateMfa', { body: { code }, headers: ip ? { 'x-forwarded-for': ip } : {} });
  }

  describe('MFA enrolment, second factor and recovery codes', () => {
    it('enroll → QR decodes to the URL → verify → logout → partial login → /authenticate/mfa → full', async () => {
      const user = await newUser({ isAdmin: true });
      const token = await user.token();
      const api = clientApi(token);

      const created = expectConforms(await api.call('enrollMfa'), 'enrollMfa', 'client');
      expect(created.status).toBe(201);
      expect(created.body.data!._links!.self.href).toBe('./current-identity/mfa');
      expectMfaError(await api.call('enrollMfa'), 409, 'MFA_EXISTS');

      const detailReply = expectConforms(await api.call('detailMfa'), 'detailMfa', 'client');
      expect(detailReply.headers.get('cache-control')).toBe('no-store');
      const detail = detailReply.body.data;
      expect(detail).toMatchObject({ id: created.body.data!.id, isVerified: false });
      expect(detail.provisioningUrl).toMatch(new RegExp(`^otpauth://totp/openziti\\.io:${user.name}\\?issuer=openziti\\.io&secret=[A-Z2-7]{16}$`));
      expect(detail.recoveryCodes).toHaveLength(20);
      for (const c of detail.recoveryCodes!) expect(c).toMatch(/^[A-Z2-7]{6}$/);
      expect(Object.keys(detail._links).sort()).toEqual(['current-identity', 'qr', 'self', 'verify']);
      const auth = authenticator(detail.provisioningUrl!);

      const qr = await api.call('detailMfaQrCode');
      expect(qr.status).toBe(200);
      expect(qr.headers.get('content-type')).toBe('image/png');
      expect(qr.headers.get('cache-control')).toBe('no-store');
      const image = await decodePng(qr.bytes);
      expect([image.width, image.height]).toEqual([256, 256]);
      expect(jsQR(image.rgba, image.width, image.height)?.data).toBe(detail.provisioningUrl);

      // Verification takes a TOTP code only.
      expectMfaError(await api.call('verifyMfa', { body: { code: auth.stale() } }), 400, 'MFA_INVALID_TOKEN');
      expectMfaError(await api.call('verifyMfa', { body: { code: detail.recoveryCodes![0] } }), 400, 'MFA_INVALID_TOKEN');
      expectMfaError(await api.call('verifyMfa', { body: { code: '' } }), 400, 'MFA_INVALID_TOKEN');
      expectMfaError(await api.call('verifyMfa', { body: {} }), 400, 'COULD_NOT_VALIDATE');
      expect((await api.call('verifyMfa', { body: { code: auth.code() } })).status).toBe(200);

      const verified = expectConforms(await api.call('detailMfa'), 'detailMfa', 'client').body.data;
      expect(verified.isVerified).toBe(true);
      expect(verified).not.toHaveProperty('provisioningUrl');
      expect(verified).not.toHaveProperty('recoveryCodes');
      expect(Object.keys(verified._links).sort()).toEqual(['current-identity', 'recovery-codes', 'self']);
      expectMfaError(await api.call('detailMfaQrCode'), 404, 'NOT_FOUND');
      expectMfaError(await api.call('verifyMfa', { body: { code: '123456' } }), 404, 'NOT_FOUND');
      expect((await api.ok('getCurrentIdentity')).data.isMfaEnabled).toBe(true);
      expect((await mgmtApi(token).ok('detailIdentity', { path: { id: user.identityId } })).data.isMfaEnabled).toBe(true);

      expect((await api.call('deleteCurrentApiSession')).status).toBe(200);
      const second = await user.login(MGMT);
      expect(second.status).toBe(200);
      expect(second.body.data).toMatchObject({ isMfaRequired: true, isMfaComplete: false, authQueries: [MFA_QUERY] });
      const partial = second.body.data.token as string;
      const pc = clientApi(partial);
      const pm = mgmtApi(partial);
      // A partial session: MFA and its own session only; a partially authenticated admin is no admin.
      expect((await pc.call('getCurrentAPISession')).status).toBe(200);
      expect((await pc.call('detailMfa')).status).toBe(200);
      for (const reply of [await pc.call('getCurrentIdentity'), await pc.call('listServices'), await pm.call('listIdentities'), await pm.call('listAPISessions'), await pc.call('detailMfaRecoveryCodes', { headers: { 'mfa-validation-code': '123456' } }), await pc.call('deleteMfa', { headers: { 'mfa-validation-code': '123456' } })]) {
        expectMfaError(reply, 401, 'UNAUTHORIZED');
      }
      const wrong = await authenticateMfa(partial, '12345x', user.ip);
      expectMfaError(wrong, 400, 'MFA_INVALID_TOKEN');
      expect(wrong.text).not.toContain('12345x');
      expect((await authenticateMfa(partial, auth.code(), user.ip)).status).toBe(200);
      const full = (await pc.ok('getCurrentAPISession')).data;
      expect(full).toMatchObject({ isMfaRequired: true, isMfaComplete: true, authQueries: [] });
      expect((await pc.call('getCurrentIdentity')).status).toBe(200);
      expect((await pm.call('listIdentities')).status).toBe(200);
    });

    it('a recovery code completes a session once and only once; the rest stay', async () => {
      const user = await newUser();
      const { auth, recoveryCodes } = await enrolled(user, await user.token());
      const first = await user.token();
      expect((await authenticateMfa(first, recoveryCodes[3], user.ip)).status).toBe(200);
      expect((await clientApi(first).call('getCurrentIdentity')).status).toBe(200);
      const second = await user.token();
      expectMfaError(await authenticateMfa(second, recoveryCodes[3], user.ip), 400, 'MFA_INVALID_TOKEN');
      expect((await authenticateMfa(second, recoveryCodes[4], user.ip)).status).toBe(200);
      const codes = expectConforms(await clientApi(second).call('detailMfaRecoveryCodes', { headers: { 'mfa-validation-code': auth.code() } }), 'detailMfaRecoveryCodes', 'client');
      expect(codes.body.data.recoveryCodes).toEqual(recoveryCodes.filter((_, i) => i !== 3 && i !== 4));
      // Viewing the codes takes a TOTP code, not a recovery code, and never without one.
      expectMfaError(await clientApi(second).call('detailMfaRecoveryCodes', { headers: { 'mfa-validation-code': recoveryCodes[5] } }), 400, 'MFA_INVALID_TOKEN');
      expectMfaError(await clientApi(second).call('detailMfaRecoveryCodes'), 400, 'MFA_INVALID_TOKEN');
    });

    it('regenerating replaces all 20 recovery codes (with a TOTP or a recovery code)', async () => {
      const user = await newUser();
      const token = await user.token();
      const { auth, recoveryCodes } = await enrolled(user, token);
      const api = clientApi(token);
      expectMfaError(await api.call('createMfaRecoveryCodes', { body: { code: 'ZZZZZZ' } }), 400, 'MFA_INVALID_TOKEN');
      expect((await api.call('createMfaRecoveryCodes', { body: { code: recoveryCodes[0] } })).status).toBe(200);
      const fresh = (await api.ok('detailMfaRecoveryCodes', { headers: { 'mfa-validation-code': auth.code() } })).data.recoveryCodes;
      expect(fresh).toHaveLength(20);
      expect(fresh.filter((c) => recoveryCodes.includes(c))).toEqual([]);
      expect((await api.call('createMfaRecoveryCodes', { body: { code: auth.code() } })).status).toBe(200);
      const again = (await api.ok('detailMfaRecoveryCodes', { headers: { 'mfa-validation-code': auth.code() } })).data.recoveryCodes;
      expect(again).toHaveLength(20);
      expect(again.filter((c) => fresh.includes(c))).toEqual([]);
      // The old codes are gone for good.
      expectMfaError(await authenticateMfa(await user.token(), fresh[0], user.ip), 400, 'MFA_INVALID_TOKEN');
    });

    it('deleting a verified MFA needs a code; an unverified one goes without; sessions are left alone', async () => {
      const user = await newUser();
      const token = await user.token();
      const { auth } = await enrolled(user, token);
      const api = clientApi(token);
      expectMfaError(await api.call('deleteMfa'), 400, 'MFA_INVALID_TOKEN');
      expectMfaError(await api.call('deleteMfa', { headers: { 'mfa-validation-code': auth.stale() } }), 400, 'MFA_INVALID_TOKEN');
      // The code may also come in a JSON body (the controller reads it first), as OpenZiti's own tests send it.
      expectMfaError(await api.call('deleteMfa', { body: { code: '' }, headers: { 'mfa-validation-code': auth.stale() } }), 400, 'MFA_INVALID_TOKEN');
      expect((await api.call('deleteMfa', { body: { code: auth.code() } })).status).toBe(200);
      expectMfaError(await api.call('detailMfa'), 404, 'NOT_FOUND');
      expectMfaError(await api.call('deleteMfa'), 404, 'NOT_FOUND');
      expect((await api.call('getCurrentIdentity')).status).toBe(200);
      const next = await user.login();
      expect(next.body.data).toMatchObject({ isMfaRequired: false, authQueries: [] });
      expectMfaError(await authenticateMfa(next.body.data.token, auth.code(), user.ip), 409, 'MFA_NOT_ENROLLED');

      expect((await api.call('enrollMfa')).status).toBe(201);
      // Started but never verified: not required at login.
      expect((await user.login()).body.data.authQueries).toEqual([]);
      expect((await api.call('deleteMfa')).status).toBe(200);
      expectMfaError(await api.call('detailMfa'), 404, 'NOT_FOUND');
    });

    it('an admin removes an identity\'s MFA without a code', async () => {
      const user = await newUser();
      await enrolled(user, await user.token());
      const admin = mgmtApi(await client().login());
      expect((await admin.ok('detailIdentity', { path: { id: user.identityId } })).data.isMfaEnabled).toBe(true);
      expect((await admin.call('removeIdentityMfa', { path: { id: user.identityId } })).status).toBe(200);
      expect((await admin.ok('detailIdentity', { path: { id: user.identityId } })).data.isMfaEnabled).toBe(false);
      expect((await user.login()).body.data).toMatchObject({ isMfaRequired: false, authQueries: [] });
      expectMfaError(await admin.call('removeIdentityMfa', { path: { id: 'no-such-identity' } }), 404, 'NOT_FOUND');
      // Not for non-admins.
      expectMfaError(await mgmtApi(await user.token()).call('removeIdentityMfa', { path: { id: user.identityId } }), 401, 'UNAUTHORIZED');
    });

    it('refuses a TOTP code that was already accepted (replay), and earlier steps after a later one', async () => {
      const user = await newUser();
      const token = await user.token();
      const api = clientApi(token);
      await api.ok('enrollMfa');
      const url = (await api.ok('detailMfa')).data.provisioningUrl!;
      const auth = authenticator(url);
      const early = auth.code();
      const used = auth.code();
      expect((await api.call('verifyMfa', { body: { code: used } })).status).toBe(200);
      const partial = await user.token();
      expectMfaError(await authenticateMfa(partial, used, user.ip), 400, 'MFA_INVALID_TOKEN');
      expectMfaError(await authenticateMfa(partial, early, user.ip), 400, 'MFA_INVALID_TOKEN');
      const later = auth.code();
      expect((await authenticateMfa(partial, later, user.ip)).status).toBe(200);
      expectMfaError(await authenticateMfa(await user.token(), later, user.ip), 400, 'MFA_INVALID_TOKEN');
    });

    it('a policy requiring TOTP makes sessions partial until the identity enrolls and verifies in that session', async () => {
      const policy = await fixtures().createAuthPolicy({ requireTotp: true });
      const user = await newUser({ authPolicyId: policy });
      const reply = await user.login();
      expect(reply.body.data).toMatchObject({ isMfaRequired: false, isMfaComplete: false, authQueries: [MFA_QUERY] });
      const token = reply.body.data.token as string;
      const api = clientApi(token);
      expectMfaError(await api.call('getCurrentIdentity'), 401, 'UNAUTHORIZED');
      expectMfaError(await authenticateMfa(token, '123456', user.ip), 409, 'MFA_NOT_ENROLLED');
      expect((await api.call('enrollMfa')).status).toBe(201);
      const auth = authenticator((await api.ok('detailMfa')).data.provisioningUrl!);
      expect((await api.call('detailMfaQrCode')).status).toBe(200);
      expect((await api.call('verifyMfa', { body: { code: auth.code() } })).status).toBe(200);
      expect((await api.ok('getCurrentAPISession')).data).toMatchObject({ isMfaRequired: true, isMfaComplete: true, authQueries: [] });
      expect((await api.call('getCurrentIdentity')).status).toBe(200);
      // The next login is partial because of the verified enrolment.
      expect((await user.login()).body.data).toMatchObject({ isMfaRequired: true, authQueries: [MFA_QUERY] });
    });

    it('50 simultaneous /authenticate/mfa calls with one recovery code complete exactly one session', async () => {
      const user = await newUser();
      const { recoveryCodes } = await enrolled(user, await user.token());
      const sessions = await partialSessions(user, 50);
      const replies = await Promise.all(sessions.map((x) => authenticateMfa(x.token, recoveryCodes[7], freshIp())));
      const statuses = replies.map((r) => r.status);
      expect(statuses.filter((x) => x === 200)).toHaveLength(1);
      // The losers read the code as used (400), or are throttled once wrong codes pile up from one address (429).
      for (const r of replies) if (r.status !== 200) expect(['MFA_INVALID_TOKEN', 'SERVER_TOO_MANY_REQUESTS']).toContain(r.body.error?.code);
      expect(await completed(user.identityId, sessions.map((x) => x.id))).toEqual([sessions[statuses.indexOf(200)].id]);
    });

    it('50 simultaneous /authenticate/mfa calls with one TOTP code complete exactly one session (no replay)', async () => {
      const user = await newUser();
      const { auth } = await enrolled(user, await user.token());
      const sessions = await partialSessions(user, 50);
      const code = auth.code();
      const replies = await Promise.all(sessions.map((x) => authenticateMfa(x.token, code, freshIp())));
      expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of replies) if (r.status !== 200) expect(['MFA_INVALID_TOKEN', 'SERVER_TOO_MANY_REQUESTS']).toContain(r.body.error?.code);
      expect(await completed(user.identityId, sessions.map((x) => x.id))).toHaveLength(1);
    });

    it('50 simultaneous enrolments create one record; the rest are 409 MFA_EXISTS', async () => {
      const user = await newUser();
      const api = clientApi(await user.token());
      const replies = await Promise.all(Array.from({ length: 50 }, () => api.call('enrollMfa')));
      expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
      for (const r of replies) if (r.status !== 201) expectMfaError(r, 409, 'MFA_EXISTS');
      expect(await db().select({ id: mfas.id }).from(mfas).where(eq(mfas.identityId, user.identityId))).toHaveLength(1);
    });

    it('wrong second factors count towards the auth policy lockout (empty codes do not)', async () => {
      const policy = await fixtures().createAuthPolicy({ updbMaxAttempts: 2, updbLockoutDurationMinutes: 0 });
      const user = await newUser({ authPolicyId: policy });
      const { auth } = await enrolled(user, await user.token());
      const partial = await user.token();
      for (let i = 0; i < 3; i++) expectMfaError(await authenticateMfa(partial, '', freshIp()), 400, 'MFA_INVALID_TOKEN');
      for (let i = 0; i < 2; i++) expectMfaError(await authenticateMfa(partial, auth.stale(), freshIp()), 400, 'MFA_INVALID_TOKEN');
      // A password login in between does not reset the second-factor count.
      await user.token();
      expectMfaError(await authenticateMfa(partial, auth.stale(), freshIp()), 400, 'MFA_INVALID_TOKEN');
      // Locked: the identity is disabled and its sessions ended.
      expectMfaError(await authenticateMfa(partial, auth.code(), freshIp()), 401, 'UNAUTHORIZED');
      expect((await user.login()).status).toBe(401);
      const rows = await db().select({ disabledAt: identities.disabledAt }).from(identities).where(eq(identities.id, user.identityId));
      expect(rows[0].disabledAt).not.toBeNull();
    });

    it('stores the secret and recovery codes encrypted, and answers 404 / 409 where nothing is enrolled', async () => {
      const user = await newUser();
      const token = await user.token();
      const api = clientApi(token);
      expectMfaError(await api.call('detailMfa'), 404, 'NOT_FOUND');
      expectMfaError(await api.call('detailMfaQrCode'), 404, 'NOT_FOUND');
      expectMfaError(await api.call('verifyMfa', { body: { code: '123456' } }), 404, 'NOT_FOUND');
      expectMfaError(await api.call('detailMfaRecoveryCodes', { headers: { 'mfa-validation-code': '123456' } }), 404, 'NOT_FOUND');
      expectMfaError(await api.call('createMfaRecoveryCodes', { body: { code: '123456' } }), 404, 'NOT_FOUND');
      expectMfaError(await authenticateMfa(token, '123456'), 409, 'MFA_NOT_ENROLLED');
      await api.ok('enrollMfa');
      const detail = (await api.ok('detailMfa')).data;
      const secret = authenticator(detail.provisioningUrl!).secret;
      const [row] = await db().select().from(mfas).where(eq(mfas.identityId, user.identityId));
      for (const stored of [row.secret, row.recoveryCodes]) {
        expect(stored).toMatch(/^v1\./);
        expect(stored).not.toContain(secret);
        for (const c of detail.recoveryCodes!) expect(stored).not.toContain(c);
      }
      // Recovery codes exist only once verified.
      expectMfaError(await api.call('detailMfaRecoveryCodes', { headers: { 'mfa-validation-code': '123456' } }), 404, 'NOT_FOUND');
    });
  });
};

export default mfaSuite;
