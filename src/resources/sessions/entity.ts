import { defineEntity } from '../../crud/entity.js';
import { commonFields } from '../../crud/list-query.js';
import { sessions } from '../../db/schema/index.js';
import type { SessionCreate } from '../../generated/client-types.js';
import { entityId } from '../../lib/ids.js';

export type SessionRow = typeof sessions.$inferSelect;

/** Dial/Bind sessions (§6). Created only through `POST /sessions`; never updated. */
export const sessionEntity = defineEntity<SessionCreate>()({
  entity: 'session',
  collection: 'sessions',
  table: sessions,
  fields: {
    ...commonFields(sessions),
    // The controller's symbols (`apiSession`, `service`, `type`; §1.6) and the JSON property names. The
    // session token is a credential and is not filterable (as for API sessions, ADR 0001).
    type: { type: 'string', sql: sessions.type },
    apiSession: { type: 'string', sql: sessions.apiSessionId },
    apiSessionId: { type: 'string', sql: sessions.apiSessionId },
    identityId: { type: 'string', sql: sessions.identityId },
    service: { type: 'string', sql: sessions.serviceId },
    serviceId: { type: 'string', sql: sessions.serviceId },
  },
  props: {},
  newId: entityId,
});
