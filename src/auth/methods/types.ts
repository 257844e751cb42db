import type { BatchItem } from 'drizzle-orm/batch';
import type { ClientCertificate, ServiceContext } from '../../deps.js';
import type { Authenticate } from '../../generated/client-types.js';
import type { AuthPolicyRow, IdentityRow } from '../../http/session.js';
import type { FailureThrottle } from '../rate-limit.js';

/** The `authenticate` body (validated against the spec's schema before a method sees it). */
export type AuthenticateBody = Authenticate;

/** One authentication attempt as a method sees it. */
export interface AuthAttempt {
  svc: ServiceContext;
  body: AuthenticateBody | undefined;
  /** The TLS client certificate the runtime received, if any. */
  clientCertificate(): ClientCertificate | undefined;
  /** The caller's address (see client-address.ts): the session's `ipAddress` and a throttling key. */
  address: string;
  throttle: FailureThrottle;
}

/** What a login needs of the identity (methods may read no more than this on their hot path). */
export type LoginIdentity = Pick<IdentityRow, 'id' | 'name' | 'envInfo' | 'sdkInfo' | 'disabledAt' | 'disabledUntil' | 'updatedAt'>;
/** What a login needs of the auth policy to build the session and its auth queries. */
export type LoginPolicy = Pick<AuthPolicyRow, 'id' | 'requireTotp' | 'requireExtJwtSigner'>;

/** The outcome of a primary authentication method: who logged in, with which authenticator. */
export interface PrimaryAuthResult {
  identity: LoginIdentity;
  authPolicy: LoginPolicy;
  /** The authenticator id, `internal` (third-party CA) or `extJwtId:<signer>` (reference §1.5). */
  authenticatorId: string;
  isCertExtendable: boolean;
  improperClientCertChain: boolean;
  /** The identity has a verified MFA enrolment: the session starts partial (read with the identity, §1.3 step 4). */
  hasVerifiedMfa: boolean;
  /** Statements to run in the session-creation batch (e.g. clearing failed attempts). */
  statements: BatchItem<'sqlite'>[];
  /** Extension flags of the cert authenticator used (reference §1.8), omitted when false. */
  certExtension?: { isCertExtendRequested?: true; isCertKeyRollRequested?: true };
  /** Statements that need the new session's id, in the same batch (the cert login's session certificate). */
  sessionStatements?(apiSessionId: string): BatchItem<'sqlite'>[];
}

/**
 * A primary authentication method (`POST /authenticate?method=<name>`). Every credential, policy or
 * disabled-identity failure is 401 INVALID_AUTH, identical whatever the reason.
 */
export interface AuthMethod {
  readonly name: string;
  authenticate(attempt: AuthAttempt): Promise<PrimaryAuthResult>;
}
