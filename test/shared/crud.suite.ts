import { describe, expect, it } from 'vitest';
import { entityRepo, writeBatch } from '../../src/crud/repo.js';
import { ApiError } from '../../src/errors.js';
import { identityEntity } from '../../src/resources/identities/entity.js';
import { adminApi, uniqueName } from './identities.suite.js';
import type { SuiteContext } from './suite.js';

/**
 * The generic CRUD helpers against the real store of each runtime (libSQL on Node, D1 in workerd): unique
 * violations raised by the index (each driver words them differently) become the API's 400.
 */
export default function crudSuite({ client, db }: SuiteContext): void {
  const admin = adminApi(client);

  describe('crud helpers on the store', () => {
    it('maps a unique-index violation from the driver to 400 COULD_NOT_VALIDATE with the field', async () => {
      const name = uniqueName('idx');
      await admin.createIdentity({ name });
      const now = Date.now();
      const row = { id: identityEntity.newId(), name, createdAt: now, updatedAt: now, tags: '{}' };
      const error = await writeBatch(db(), [entityRepo(identityEntity.table).insert(db(), row)], [{ table: identityEntity.table, columns: identityEntity.unique!, values: row }]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe('COULD_NOT_VALIDATE');
      expect((error as ApiError).causeDetail).toEqual({ field: 'name', reason: 'name must be unique', value: name });
    });

    it('lets exactly one of two concurrent creates with the same name win', async () => {
      const name = uniqueName('race');
      const replies = await Promise.all([0, 1].map(() => admin.call('/identities', { body: { name, isAdmin: false, type: 'User' } })));
      expect(replies.map((r) => r.status).sort()).toEqual([201, 400]);
      const loser = replies.find((r) => r.status === 400)!;
      expect(loser.body.error.cause).toEqual({ field: 'name', reason: 'name must be unique', value: name });
    });
  });
}
