/**
 * The identity list read in the same round trip as the session check (docs/adr/0016-list-read-ahead.md).
 * On D1 the page is read before the check has decided, behind a guard that admits admins' sessions only;
 * on Node it is read after the check, as before. Either way a caller gets what the check decides: the page
 * for an admin, 401 for anyone else, and 400 for bad parameters only once it is known to be an admin.
 */
import { fillPlaceholders, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { hashSessionToken } from '../../src/auth/session-token.js';
import { ADMIN_CALLER } from '../../src/auth/session-repo.js';
import { readTogether } from '../../src/db/client.js';
import { identityService } from '../../src/resources/identities/service.js';
import type { Deps } from '../../src/deps.js';
import { CLIENT } from '../helpers/client.js';
import { storeFixtures } from './auth-fixtures.js';
import { adminApi, uniqueName } from './identities.suite.js';
import type { SuiteContext } from './suite.js';

export default function listReadAheadSuite({ client, db, runtime }: SuiteContext): void {
  const admin = adminApi(client);

  /** A password user's session token (not an admin). */
  async function userToken(): Promise<string> {
    const user = await admin.createUser();
    const reply = await admin.login(user.username, user.password);
    expect(reply.status).toBe(200);
    return reply.body.data.token as string;
  }

  const listOf = (prefix: string) => `/identities?filter=${encodeURIComponent(`name contains "${prefix}"`)}&sort=${encodeURIComponent('name desc')}&limit=2`;

  describe('the identity list read with the session check', () => {
    it('gives an admin the filtered, sorted page and its exact total, asked again after creates and deletes', async () => {
      const prefix = uniqueName('ra');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push(await admin.createIdentity({ name: `${prefix}-${i}` }));
      for (let round = 0; round < 2; round++) {
        const reply = await admin.call(listOf(prefix));
        expect(reply.status).toBe(200);
        expect(reply.body.data.map((x: { name: string }) => x.name)).toEqual([`${prefix}-2`, `${prefix}-1`]);
        expect(reply.body.meta.pagination).toMatchObject({ totalCount: 3, limit: 2, offset: 0 });
      }
      await admin.createIdentity({ name: `${prefix}-3` });
      expect((await admin.call(listOf(prefix))).body.meta.pagination.totalCount).toBe(4);
      expect((await admin.call(`/identities/${ids[0]}`, { method: 'DELETE' })).status).toBe(200);
      const after = await admin.call(listOf(prefix));
      expect(after.body.meta.pagination.totalCount).toBe(3);
      expect(after.body.data.map((x: { name: string }) => x.name)).toEqual([`${prefix}-3`, `${prefix}-2`]);
    });

    it('refuses a caller who is not an admin with 401, and gives it no identity', async () => {
      const prefix = uniqueName('ra-user');
      await admin.createIdentity({ name: prefix });
      const token = await userToken();
      const reply = await client().request(`/edge/management/v1${listOf(prefix)}`, { token });
      expect(reply.status).toBe(401);
      expect(reply.body.error.code).toBe('UNAUTHORIZED');
      expect(JSON.stringify(reply.body)).not.toContain(prefix);
    });

    it('refuses an admin session that has expired, though the guard admits its identity', async () => {
      const token = await client().login();
      expect((await client().request('/edge/management/v1/identities?limit=1', { token })).status).toBe(200);
      await db().run(sql`UPDATE api_sessions SET last_activity_at = 0 WHERE token_hash = ${await hashSessionToken(token)}`);
      const reply = await client().request('/edge/management/v1/identities?limit=1', { token });
      expect(reply.status).toBe(401);
      // And the expired session is gone, as after any other request.
      await expect.poll(async () => (await db().values(sql`SELECT 1 FROM api_sessions WHERE token_hash = ${await hashSessionToken(token)}`)).length).toBe(0);
    });

    it('answers bad list parameters with 400 to an admin and 401 to anyone else', async () => {
      const bad = `/identities?filter=${encodeURIComponent('name ~~ 1')}`;
      const asAdmin = await admin.call(bad);
      expect(asAdmin.status).toBe(400);
      expect(asAdmin.body.error.code).toBe('INVALID_FILTER');
      expect((await client().request(`/edge/management/v1${bad}`, { token: await userToken() })).status).toBe(401);
      expect((await client().request(`/edge/management/v1${bad}`, { token: crypto.randomUUID() })).status).toBe(401);
      const badSemantic = await admin.call(`/identities?roleFilter=${encodeURIComponent('#a')}&roleSemantic=neither`);
      expect(badSemantic.status).toBe(400);
    });

    it('an MFA-pending session of an admin identity is not an admin caller', async () => {
      const user = await admin.createUser({ isAdmin: true, authPolicyId: await storeFixtures(db()).createAuthPolicy({ requireTotp: true }) });
      const login = await admin.login(user.username, user.password);
      expect(login.status).toBe(200);
      expect(login.body.data.authQueries.length).toBeGreaterThan(0);
      const reply = await client().request('/edge/management/v1/identities?limit=1', { token: login.body.data.token });
      expect(reply.status).toBe(401);
      // The client API still answers it as the partial session it is.
      expect((await client().request(`${CLIENT}/current-api-session`, { token: login.body.data.token })).status).toBe(200);
    });

    // The guarded page itself, as D1 reads it (the embedded file on Node reads the page after the check).
    it.skipIf(runtime === 'node')('the guarded page is empty for a token that is not an admin session, and the page for one that is', async () => {
      const prefix = uniqueName('ra-guard');
      for (let i = 0; i < 3; i++) await admin.createIdentity({ name: `${prefix}-${i}` });
      const deps = { db: db(), now: () => Date.now(), config: { sessionTimeoutSeconds: 1800 } } as unknown as Deps;
      const pending = identityService.listReadAhead!(deps, { filter: `name contains "${prefix}"`, sort: 'name asc', limit: 2 }, {}, ADMIN_CALLER);
      expect(pending).toBeDefined();
      const read = async (token: string) => {
        const [rows] = await readTogether(db())!([{ sql: pending!.sql, params: fillPlaceholders(pending!.params, { ...pending!.placeholders, tokenHash: await hashSessionToken(token) }) }]);
        return rows;
      };
      expect(await read(admin.token())).toHaveLength(2);
      expect(await read(await userToken())).toHaveLength(0);
      expect(await read(crypto.randomUUID())).toHaveLength(0);
    });
  });
}
