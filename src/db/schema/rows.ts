import type { apiSessions, authPolicies, identities } from './identities.js';

/** Row types shared across layers, declared next to the schema so that no layer imports another for them. */
export type ApiSessionRow = typeof apiSessions.$inferSelect;
export type IdentityRow = typeof identities.$inferSelect;
export type AuthPolicyRow = typeof authPolicies.$inferSelect;

/** The caller's own API session: the stored row plus the token it presented (never stored). */
export type ApiSessionWithToken = ApiSessionRow & { token: string };
