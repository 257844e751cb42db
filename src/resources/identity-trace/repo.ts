import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { identities } from '../../db/schema/index.js';

export interface TraceValues {
  traceId: string | null;
  traceUntil: number | null;
  /** JSON array of channel names, or null when tracing is off. */
  traceChannels: string | null;
}

/**
 * Sets (or clears) the identity's trace in one conditional write: false when no identity has the id.
 * `updatedAt` is left alone: tracing is an operational switch, not an edit of the identity.
 */
export async function writeTrace(db: Db, identityId: string, values: TraceValues): Promise<boolean> {
  const rows = await db.update(identities).set(values).where(eq(identities.id, identityId)).returning({ id: identities.id });
  return rows.length > 0;
}
