import { and, count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authenticators, identities } from '../../src/db/schema/index.js';
import { CLIENT, MGMT, type TestClient } from '../helpers/client.js';
import { unique, type AuthFixtures } from './auth-fixtures.js';

export interface RobustnessOptions {
  /** How many times each race runs (fewer inside workerd, where each login is slower). */
  rounds: number;
  /** Password hashes checked against a stored (non-dummy) salt so far, where the runtime can count them. */
  checkedHashes?: () => number;
}

/**
 * Races the store must decide (issue 10): parallel guessing against the lockout, a login racing a disable,
 * concurrent authenticator creates for one identity, an authenticator created while its identity is deleted.
 */
export function robustnessSuite(client: () => TestClient, fixtures: () => AuthFixtures, options: RobustnessOptions) {
  const login = (username: string, password: string) => client().request(`${CLIENT}/authenticate?method=password`, { body: { username, password } });
  const newIdentity = async (token: string) => (await client().request(`${MGMT}/identities`, { token, body: { name: unique('race'), type: 'User', isAdmin: false } })).body.data.id as string;
  const authenticatorCount = async (identityId: string) =>
    (await fixtures().db.select({ n: count() }).from(authenticators).where(eq(authenticators.identityId, identityId)))[0].n;

  describe('lockout under parallel guessing', () => {
    it('a burst of 64 guesses with maxAttempts 3 checks at most 4 passwords, locks, and leaves no session that works', async () => {
      const policy = await fixtures().createAuthPolicy({ updbMaxAttempts: 3, updbLockoutDurationMinutes: 5 });
      for (let round = 0; round < options.rounds; round++) {
        const username = unique('burst');
        const user = await fixtures().createUser({ username, password: 'right-password', authPolicyId: policy });
        const right = (round * 17 + 5) % 64;
        const before = options.checkedHashes?.() ?? 0;
        const replies = await Promise.all(Array.from({ length: 64 }, (_, i) => login(username, i === right ? 'right-password' : `wrong-guess-${i}`)));
        if (options.checkedHashes) expect(options.checkedHashes() - before).toBeLessThanOrEqual(4);
        // The right guess wins only if the runtime happened to check it among the first maxAttempts + 1, as a
        // sequential fourth try would; the lock the burst then triggers ends that session (checked below).
        const won = replies.filter((r) => r.status === 200);
        expect(won.length).toBeLessThanOrEqual(1);
        // Every other guess is refused: 401 INVALID_AUTH, or 429 once the per-user failure throttle has seen enough.
        const refused = (r: (typeof replies)[number]) => (r.status === 401 && r.body.error.code === 'INVALID_AUTH') || (r.status === 429 && r.body.error.code === 'SERVER_TOO_MANY_REQUESTS');
        expect(replies.filter((r) => r.status !== 200 && !refused(r)).map((r) => r.text.slice(0, 200))).toEqual([]);
        for (const r of won) expect((await client().get(`${MGMT}/current-api-session`, r.body.data.token)).status).toBe(401);
        const [row] = await fixtures().db.select({ disabledAt: identities.disabledAt }).from(identities).where(eq(identities.id, user.identityId));
        expect(row.disabledAt).not.toBeNull();
        expect(await fixtures().sessionCount(user.identityId)).toBe(0);
        // Still locked: the right password alone is refused too (by the lock, or first by the failure throttle).
        const after = await login(username, 'right-password');
        expect([401, 429]).toContain(after.status);
        expect(after.headers.get('zt-session')).toBeNull();
      }
    });

    it('a login racing a disable keeps no session', async () => {
      const admin = await client().login();
      let survived = 0;
      for (let round = 0; round < options.rounds * 3; round++) {
        const username = unique('racer');
        const user = await fixtures().createUser({ username, password: 'right-password' });
        const pending = login(username, 'right-password');
        await new Promise((r) => setTimeout(r, round % 3 === 0 ? 0 : 5 * (round % 3)));
        const disabled = await client().request(`${MGMT}/identities/${user.identityId}/disable`, { token: admin, body: { durationMinutes: 0 } });
        expect(disabled.status).toBe(200);
        const reply = await pending;
        if ((await fixtures().sessionCount(user.identityId)) > 0) survived++;
        await client().request(`${MGMT}/identities/${user.identityId}/enable`, { token: admin, method: 'POST' });
        if (reply.status === 200) expect((await client().get(`${CLIENT}/current-api-session`, reply.body.data.token)).status).toBe(401);
        else expect(reply.body.error.code).toBe('INVALID_AUTH');
      }
      expect(survived).toBe(0);
    });
  });

  describe('authenticators under concurrency', () => {
    it('50 concurrent updb creates for one identity: exactly one is created, the others are 409', async () => {
      const admin = await client().login();
      const identityId = await newIdentity(admin);
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) => client().request(`${MGMT}/authenticators`, { token: admin, body: { method: 'updb', identityId, username: unique(`one${i}`), password: 'some-password' } })),
      );
      expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
      for (const r of replies.filter((x) => x.status !== 201)) {
        expect(r.status, r.text).toBe(409);
        expect(r.body.error.code).toBe('MAX_AUTHENTICATOR_METHODS_REACHED');
      }
      expect(await authenticatorCount(identityId)).toBe(1);
      const updb = await fixtures().db.select({ n: count() }).from(authenticators).where(and(eq(authenticators.identityId, identityId), eq(authenticators.method, 'updb')));
      expect(updb[0].n).toBe(1);
    });

    it('an authenticator created while its identity is deleted does not survive it', async () => {
      const admin = await client().login();
      let orphans = 0;
      for (let round = 0; round < options.rounds * 3; round++) {
        const identityId = await newIdentity(admin);
        const create = client().request(`${MGMT}/authenticators`, { token: admin, body: { method: 'updb', identityId, username: unique('orphan'), password: 'some-password' } });
        await new Promise((r) => setTimeout(r, round % 4));
        expect((await client().request(`${MGMT}/identities/${identityId}`, { token: admin, method: 'DELETE' })).status).toBe(200);
        const created = await create;
        expect([201, 404]).toContain(created.status);
        orphans += await authenticatorCount(identityId);
      }
      expect(orphans).toBe(0);
    });
  });
}
