import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { baseColumns } from './common.js';

/**
 * An identity's TOTP enrolment (at most one: unique identity). The secret and the recovery codes are
 * stored encrypted under CONTROLLER_SECRET (src/pki/secrets.ts format), never in clear.
 */
export const mfas = sqliteTable(
  'mfas',
  {
    ...baseColumns(),
    identityId: text('identity_id').notNull(),
    isVerified: integer('is_verified', { mode: 'boolean' }).notNull().default(false),
    /** Encrypted Base32 secret. */
    secret: text('secret').notNull(),
    /** Encrypted JSON array of the unused recovery codes; a new ciphertext (fresh IV) on every write. */
    recoveryCodes: text('recovery_codes').notNull(),
    /** The last TOTP step accepted: a code is accepted only for a later step (no replay; ADR 0007). */
    lastUsedStep: integer('last_used_step'),
    /**
     * A fresh random value written by every write that consumes a code, so that the statements batched
     * after it (completing the session) run only for the request whose conditional write won.
     */
    lastUseId: text('last_use_id'),
  },
  (t) => [uniqueIndex('mfas_identity_uq').on(t.identityId)],
);
