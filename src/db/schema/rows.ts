import type { apiSessions, authPolicies, identities } from './identities.js';

/** Row types shared across layers, declared next to the schema so that no layer imports another for them. */
export type ApiSessionRow = typeof apiSessions.$inferSelect;
export type IdentityRow = typeof identities.$inferSelect;
export type AuthPolicyRow = typeof authPolicies.$inferSelect;

/** An API session as the app handles it: every column but the token's hash, which only lookups use. */
export type ApiSessionView = Omit<ApiSessionRow, 'tokenHash'>;
/** The caller's own API session: the stored row plus the token it presented (never stored). */
export type ApiSessionWithToken = ApiSessionView & { token: string };
