import type { Deps } from '../../deps.js';
import type { OpContext } from '../../http/handler.js';
import type { AuthPolicyRow, IdentityRow } from '../../http/session.js';

/** The outcome of a primary authentication method: who logged in, and with which authenticator. */
export interface PrimaryAuthResult {
  identity: IdentityRow;
  authPolicy: AuthPolicyRow | null;
  authenticatorId: string;
  isCertExtendable: boolean;
  improperClientCertChain: boolean;
  /** Statements to run in the session-creation batch (e.g. resetting failed attempts). */
  onSuccess: (deps: Deps) => import('drizzle-orm/batch').BatchItem<'sqlite'>[];
}

export type AuthMethod = (ctx: OpContext) => Promise<PrimaryAuthResult>;
