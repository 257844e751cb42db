import type { ApiSessionRow, IdentityRow } from '../db/schema/rows.js';

/** Disabled from `disabledAt` until `disabledUntil` (or until enabled, when that is null). */
export function isDisabled(identity: Pick<IdentityRow, 'disabledAt' | 'disabledUntil'>, now: number): boolean {
  return identity.disabledAt !== null && (identity.disabledUntil === null || identity.disabledUntil > now);
}

/** A session is live while its last recorded activity is within the inactivity timeout. */
export function isExpired(apiSession: Pick<ApiSessionRow, 'lastActivityAt'>, now: number, timeoutSeconds: number): boolean {
  return apiSession.lastActivityAt + timeoutSeconds * 1000 < now;
}
