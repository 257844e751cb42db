import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { baseColumns } from './common.js';

/**
 * Dial/Bind sessions (reference model-and-policies §6). The token is derived from the id with a key of
 * the controller secret (src/resources/sessions/token.ts), so the store holds no token at all: a copy of
 * the store alone cannot use a session.
 * - `(api_session_id, service_id, type)` is unique: a re-create on the same API session returns the same
 *   session, and 50 concurrent creates store one row;
 * - triggers (migration `sessions`) delete a session with its API session, its service and its identity,
 *   whichever code path deletes those;
 * - a write that takes an identity's access away deletes its sessions in the same batch
 *   (src/policy/service-updates-repo.ts).
 */
export const sessions = sqliteTable(
  'sessions',
  {
    ...baseColumns(),
    apiSessionId: text('api_session_id').notNull(),
    identityId: text('identity_id').notNull(),
    serviceId: text('service_id').notNull(),
    type: text('type', { enum: ['Dial', 'Bind'] }).notNull(),
    /** JSON array of the ids of the service policies that granted the session (management detail). */
    servicePolicies: text('service_policies').notNull().default('[]'),
  },
  (t) => [
    uniqueIndex('sessions_api_session_service_type_uq').on(t.apiSessionId, t.serviceId, t.type),
    index('sessions_identity_idx').on(t.identityId),
    index('sessions_service_idx').on(t.serviceId),
    index('sessions_created_at_idx').on(t.createdAt),
  ],
);
