/**
 * The provider's flows (reference oidc.md §5): authorize, login (password, certificate, external JWT) with
 * the TOTP and secondary external-JWT steps, the callback that issues the code, and the token endpoint's
 * grants (authorization code with PKCE, refresh token, RFC 8693 token exchange), revocation, end-session,
 * userinfo and introspection. Plain functions of a ServiceContext and parsed input: no HTTP here
 * (src/oidc/routes.ts parses and answers). Deliberate differences from controller v1.6.2: ADR 0013.
 */
import { secondaryExtJwtQuery } from '../auth/ext-jwt-secondary.js';
import { withPrimaryLogin } from '../auth/login.js';
import type { AuthenticateBody } from '../auth/methods/index.js';
import { isDisabled } from '../auth/identity-state.js';
import type { ClientCertificate, Deps, ServiceContext } from '../deps.js';
import { ApiError } from '../errors.js';
import type { AuthQueryDetail } from '../generated/management-types.js';
import { sha1Hex, sha256Hex, toBase64 } from '../lib/encoding.js';
import { uuid } from '../lib/ids.js';
import { readJson, toSet } from '../lib/json.js';
import { nonEmptyStrings } from '../lib/objects.js';
import { clientInfoUpdate } from '../resources/authenticate/service.js';
import { effectiveOidcSettings } from '../resources/controller-settings/service.js';
import { passSecondFactor } from '../resources/mfa/service.js';
import { isClientId, postLogoutAllowed, redirectAllowed, type ClientId } from './clients.js';
import {
  completeExtJwt,
  completeTotpStatement,
  deleteEndedSessions,
  deleteExpiredAuthRequests,
  findAuthRequest,
  findAuthRequestByCode,
  findConfigTypes,
  findOidcSession,
  findTokenIdentity,
  FOREVER,
  insertAuthRequest,
  insertRevocation,
  issueCode,
  recordPrimaryLogin,
  redeemCode,
  replaceRefresh,
  rotateRefresh,
  type AuthRequestRow,
  type OidcSessionRow,
  type TokenIdentity,
} from './repo.js';
import { currentDenyList, isRevoked, noteRevocation } from './revocations.js';
import { endSession } from './sessions.js';
import { carriedSession, mintTokens, REFRESH_TOKEN_TYPE, type EnvInfoClaim, type Grant, type MintedTokens, type RefreshClaims, type SdkInfoClaim } from './tokens.js';
import { audienceAccepted, verifyAccessToken, verifyControllerJwt } from './verify.js';
import { acceptedIssuer } from './clients.js';
import { atomic } from '../db/client.js';

/** An unfinished authorization request (and its code) lives this long (§5.1). */
export const AUTH_REQUEST_TTL_MS = 10 * 60_000;
/** A refresh token rotated this recently may still be exchanged for an ID token (§12.3). */
export const ROTATION_GRACE_MS = 60_000;
/** Expired requests and ended sessions are swept at most this often per instance. */
const SWEEP_INTERVAL_MS = 60_000;
const SWEEP_MAX = 500;

/** The scopes tokens may carry; others are dropped silently (§5.1). */
const KNOWN_SCOPES = new Set(['openid', 'profile', 'email', 'phone', 'address', 'offline_access']);
const LOGIN_METHODS = { password: 'password', username: 'password', cert: 'cert', 'ext-jwt': 'ext-jwt' } as const;
export type LoginPath = keyof typeof LOGIN_METHODS;

export const TOKEN_TYPES = {
  access: 'urn:ietf:params:oauth:token-type:access_token',
  refresh: 'urn:ietf:params:oauth:token-type:refresh_token',
  id: 'urn:ietf:params:oauth:token-type:id_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
} as const;
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** An OAuth error of the token, revoke or end-session endpoints: `{error, error_description}` (RFC 6749 §5.2). */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

/** A plain-text 400 of `/oidc/authorize` and the callback: no redirect URI can be trusted with it (§10). */
export class PlainError extends Error {}

/** Request parameters: every value of every name (query and form merged). */
export type Params = Map<string, string[]>;
const first = (p: Params, name: string): string | undefined => p.get(name)?.[0];

function base64url(bytes: Uint8Array | ArrayBuffer): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

export function hashOf(value: string): Promise<string> {
  return sha256Hex(new TextEncoder().encode(value));
}

/** Constant-time comparison of two ASCII strings. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** `<uri>?state=..&code=..`: the state first and the code last, so that a client reading from `code=` to the end gets the code alone. */
function withQuery(uri: string, params: [string, string | null | undefined][]): string {
  const q = params.filter((p): p is [string, string] => typeof p[1] === 'string' && p[1] !== '').map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  if (q.length === 0) return uri;
  return uri + (uri.includes('?') ? '&' : '?') + q.join('&');
}

function certFingerprint(cc: ClientCertificate | undefined): Promise<string | undefined> {
  if (!cc) return Promise.resolve(undefined);
  if (cc.chainDer.length > 0) return sha1Hex(cc.chainDer[0]);
  return Promise.resolve(cc.fingerprintSha1?.toLowerCase());
}

/** Config type entries (ids or names) to ids; `all` alone stands for every type (§1.10). */
async function configTypeIds(deps: Deps, entries: string[]): Promise<string[]> {
  const wanted = toSet(entries.filter((e) => e.length > 0 && e.length <= 100)).slice(0, 40);
  if (wanted.includes('all')) return ['all'];
  const found = await findConfigTypes(deps.db, wanted);
  return toSet(found.map((t) => t.id));
}

const lastSweep = new WeakMap<Deps, number>();
function sweep(deps: Deps, defer: (p: Promise<unknown>) => void): void {
  const now = deps.now();
  if (now - (lastSweep.get(deps) ?? Number.NEGATIVE_INFINITY) < SWEEP_INTERVAL_MS) return;
  lastSweep.set(deps, now);
  defer(deleteExpiredAuthRequests(deps.db, now, SWEEP_MAX));
  defer(deleteEndedSessions(deps.db, now - 60 * 60_000, SWEEP_MAX));
}

// ---------------------------------------------------------------------------------------------------------
// Authorize (§5.1)

export interface AuthorizeInput {
  params: Params;
  /** Where the login pages are: `<origin>/oidc`. */
  base: string;
  clientCertificate(): ClientCertificate | undefined;
}

/**
 * Starts an authorization request and answers where the client logs in (a 302 Location). Missing or
 * unknown `client_id`/`redirect_uri` are a plain 400 (PlainError); other problems go back to the
 * (validated) redirect URI as `error=...` (§10). PKCE with S256 is required here, not only at the token
 * endpoint (ADR 0013).
 */
export async function authorize(svc: ServiceContext, input: AuthorizeInput): Promise<string> {
  const { deps } = svc;
  const p = input.params;
  const clientId = first(p, 'client_id');
  const redirectUri = first(p, 'redirect_uri');
  if (!clientId || !redirectUri) throw new PlainError('client_id and redirect_uri are required');
  if (!isClientId(clientId)) throw new PlainError('unknown client_id');
  if (redirectUri.length > 2048 || !redirectAllowed(redirectUri, (await effectiveOidcSettings(deps)).redirectUris)) {
    throw new PlainError('redirect_uri is not registered for this client');
  }
  const state = first(p, 'state');
  const fail = (error: string, description: string) => withQuery(redirectUri, [['error', error], ['error_description', description], ['state', state]]);
  if (state !== undefined && state.length > 1024) return fail('invalid_request', 'state is too long');
  const nonce = first(p, 'nonce');
  if (nonce !== undefined && nonce.length > 1024) return fail('invalid_request', 'nonce is too long');
  if (first(p, 'request') !== undefined) return fail('request_not_supported', 'request objects are not supported');
  const prompts = (first(p, 'prompt') ?? '').split(' ').filter(Boolean);
  if (prompts.includes('none')) return fail(prompts.length === 1 ? 'login_required' : 'invalid_request', prompts.length === 1 ? 'a login is required' : 'prompt none must be alone');
  const requestedScopes = (first(p, 'scope') ?? '').split(' ').filter(Boolean);
  if (!requestedScopes.includes('openid')) return fail('invalid_scope', 'the scope openid is required');
  const scopes = toSet(requestedScopes.filter((s) => KNOWN_SCOPES.has(s)));
  if (first(p, 'response_type') !== 'code') return fail('unsupported_response_type', 'only response_type code is supported');
  const challenge = first(p, 'code_challenge');
  const method = first(p, 'code_challenge_method') ?? 'plain';
  if (!challenge || method !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
    return fail('invalid_request', 'a code_challenge with code_challenge_method S256 is required');
  }
  const loginMethod = first(p, 'method');
  if (loginMethod !== undefined && !['password', 'cert', 'ext-jwt'].includes(loginMethod)) return fail('invalid_request', 'method must be password, cert or ext-jwt');

  const now = deps.now();
  const id = uuid();
  const presented = await certFingerprint(input.clientCertificate());
  const row: AuthRequestRow = {
    idHash: await hashOf(id),
    clientId,
    redirectUri,
    state: state ?? null,
    nonce: nonce ?? null,
    scopes: JSON.stringify(scopes),
    codeChallenge: challenge,
    apiSessionId: uuid(),
    remoteAddress: svc.clientAddress(),
    certFingerprints: JSON.stringify(presented ? [presented] : []),
    configTypes: JSON.stringify(await configTypeIds(deps, p.get('configTypes') ?? [])),
    createdAt: now,
    expiresAt: now + AUTH_REQUEST_TTL_MS,
    identityId: null,
    authenticatorId: null,
    amr: '[]',
    authTime: null,
    totpRequired: false,
    totpDone: false,
    extJwtPending: null,
    certExtendable: false,
    certExtendRequested: false,
    certKeyRollRequested: false,
    improperChain: false,
    sdkInfo: null,
    envInfo: null,
    codeHash: null,
    consumedAt: null,
    consumeId: null,
  };
  await insertAuthRequest(deps.db, row);
  sweep(deps, svc.defer);
  // With no method: the certificate page when the connection carried one (§5.1).
  const page = loginMethod === 'password' ? 'username' : loginMethod ?? (presented ? 'cert' : 'username');
  return `${input.base}/login/${page}?authRequestID=${encodeURIComponent(id)}`;
}

// ---------------------------------------------------------------------------------------------------------
// Login (§5.2, §5.3)

/** Where a login stands: finished (the client goes to the callback), or with factors outstanding. */
export interface LoginState {
  id: string;
  done: boolean;
  totpRequired: boolean;
  authQueries: AuthQueryDetail[];
}

const TOTP_QUERY: AuthQueryDetail = { typeId: 'TOTP', provider: 'ziti', format: 'numeric', httpMethod: 'POST', httpUrl: './oidc/login/totp', minLength: 6, maxLength: 8 };

function stateOf(id: string, row: Pick<AuthRequestRow, 'totpRequired' | 'totpDone' | 'extJwtPending'>, extJwt?: AuthQueryDetail | null): LoginState {
  const queries: AuthQueryDetail[] = [];
  const totp = row.totpRequired && !row.totpDone;
  if (totp) queries.push({ ...TOTP_QUERY });
  if (row.extJwtPending) queries.push(extJwt ?? { typeId: 'EXT-JWT', provider: 'url', id: row.extJwtPending, scopes: null });
  return { id, done: queries.length === 0, totpRequired: totp, authQueries: queries };
}

async function liveRequest(deps: Deps, id: string | undefined): Promise<{ row: AuthRequestRow; hash: string } | undefined> {
  if (!id || id.length > 64) return undefined;
  const hash = await hashOf(id);
  const row = await findAuthRequest(deps.db, hash, deps.now());
  return row && row.consumedAt === null ? { row, hash } : undefined;
}

export interface LoginInput {
  path: LoginPath;
  id: string | undefined;
  body: AuthenticateBody;
  clientCertificate(): ClientCertificate | undefined;
}

/**
 * A primary login on an authorization request, by the existing methods (src/auth/login.ts: the same
 * rules, throttle and lockout as `POST /authenticate`); or, on `ext-jwt` for a request whose primary login
 * is done, the secondary external JWT its auth policy requires. Every failure is 401 INVALID_AUTH (the
 * controller answers a wrong password with 200 and the login page, ADR 0013).
 */
export async function login(svc: ServiceContext, input: LoginInput): Promise<LoginState> {
  const { deps } = svc;
  const found = await liveRequest(deps, input.id);
  if (!found) throw new ApiError('INVALID_AUTH');
  const { row, hash } = found;
  const id = input.id!;
  if (row.identityId !== null) {
    if (input.path === 'ext-jwt' && row.extJwtPending) return secondaryExtJwt(svc, id, hash, row);
    throw new ApiError('INVALID_AUTH');
  }
  const method = LOGIN_METHODS[input.path];
  return withPrimaryLogin(svc, { method, body: input.body, clientCertificate: input.clientCertificate }, async (result) => {
    const now = deps.now();
    const policy = result.authPolicy;
    const extJwt = policy.requireExtJwtSigner ? await secondaryExtJwtQuery(deps, policy, result.identity.id, svc.bearerTokens(), svc.requestId) : null;
    const fingerprints = readJson<string[]>(row.certFingerprints, []);
    if (method === 'cert') {
      const fp = await certFingerprint(input.clientCertificate());
      if (fp && !fingerprints.includes(fp)) fingerprints.push(fp);
    }
    const requested = input.body.configTypes;
    const info = clientInfoUpdate(deps, result.identity, input.body, now);
    const login = {
      identityId: result.identity.id,
      authenticatorId: result.authenticatorId,
      amr: JSON.stringify(extJwt === null && policy.requireExtJwtSigner ? [method, `ejs:${policy.requireExtJwtSigner}`] : [method]),
      authTime: now,
      totpRequired: result.hasVerifiedMfa || policy.requireTotp,
      extJwtPending: extJwt ? policy.requireExtJwtSigner : null,
      certExtendable: result.isCertExtendable,
      certExtendRequested: result.certExtension?.isCertExtendRequested === true,
      certKeyRollRequested: result.certExtension?.isCertKeyRollRequested === true,
      improperChain: result.improperClientCertChain,
      sdkInfo: input.body.sdkInfo ? JSON.stringify(sdkClaim(input.body.sdkInfo)) : null,
      envInfo: input.body.envInfo ? JSON.stringify(envClaim(input.body.envInfo)) : null,
      configTypes: Array.isArray(requested) && requested.length > 0 ? JSON.stringify(await configTypeIds(deps, requested.filter((v): v is string => typeof v === 'string'))) : row.configTypes,
      certFingerprints: JSON.stringify(fingerprints),
    };
    const statements = [...result.statements, ...(info.statement ? [info.statement] : [])];
    // Won only on a live request without a login, while the identity is enabled.
    if (!(await recordPrimaryLogin(deps.db, hash, now, login, statements))) throw new ApiError('INVALID_AUTH');
    return stateOf(id, { totpRequired: login.totpRequired, totpDone: false, extJwtPending: login.extJwtPending }, extJwt);
  });
}

async function secondaryExtJwt(svc: ServiceContext, id: string, hash: string, row: AuthRequestRow): Promise<LoginState> {
  const { deps } = svc;
  const signer = row.extJwtPending!;
  const query = await secondaryExtJwtQuery(deps, { requireExtJwtSigner: signer }, row.identityId!, svc.bearerTokens(), svc.requestId);
  if (query) throw new ApiError('INVALID_AUTH');
  const amr = withAmr(row.amr, `ejs:${signer}`);
  if (!(await completeExtJwt(deps.db, hash, signer, amr, deps.now()))) throw new ApiError('INVALID_AUTH');
  return stateOf(id, { ...row, extJwtPending: null });
}

/** The methods used so far, in the order they were used, plus one more. */
function withAmr(stored: string, method: string): string {
  const amr = readJson<string[]>(stored, []);
  return JSON.stringify(amr.includes(method) ? amr : [...amr, method]);
}

/** The SDK info as a claim: its known fields that are not empty, as the controller's model omits empty ones. */
function sdkClaim(info: NonNullable<AuthenticateBody['sdkInfo']>): SdkInfoClaim {
  return nonEmptyStrings({ appId: info.appId, appVersion: info.appVersion, branch: info.branch, revision: info.revision, type: info.type, version: info.version });
}

function envClaim(info: NonNullable<AuthenticateBody['envInfo']>): EnvInfoClaim {
  return nonEmptyStrings({ arch: info.arch, domain: info.domain, hostname: info.hostname, os: info.os, osRelease: info.osRelease, osVersion: info.osVersion });
}

/**
 * `/oidc/login/totp`: the identity's TOTP (or a recovery code) as the second factor, with the same single
 * use, throttle and lockout as `/authenticate/mfa` (src/resources/mfa). 400 MFA_INVALID_TOKEN for a wrong
 * code, 409 MFA_NOT_ENROLLED without a verified enrolment.
 */
export async function loginTotp(svc: ServiceContext, id: string | undefined, code: string | undefined): Promise<LoginState> {
  const { deps } = svc;
  const found = await liveRequest(deps, id);
  if (!found || found.row.identityId === null) throw new ApiError('INVALID_AUTH');
  const { row, hash } = found;
  if (!row.totpRequired || row.totpDone) return stateOf(id!, row);
  if (!code || code.length > 13) throw new ApiError('MFA_INVALID_TOKEN');
  const identity = await findTokenIdentity(deps.db, row.identityId!);
  if (!identity || isDisabled(identity, deps.now())) throw new ApiError('INVALID_AUTH');
  const amr = withAmr(row.amr, 'totp');
  await passSecondFactor(svc, { identity: { id: identity.id, authPolicyId: identity.authPolicyId } }, code.trim(), (won) => [completeTotpStatement(deps.db, hash, amr, won)]);
  return stateOf(id!, { ...row, totpDone: true });
}

/** `/oidc/login/auth-queries`: what the request still needs; 401 for an unknown one. */
export async function loginState(deps: Deps, id: string | undefined): Promise<LoginState> {
  const found = await liveRequest(deps, id);
  if (!found || found.row.identityId === null) throw new ApiError('INVALID_AUTH');
  return stateOf(id!, found.row);
}

// ---------------------------------------------------------------------------------------------------------
// Callback (§5.4)

/**
 * Issues the code of a finished request: the redirect URI with `state` and `code`; an unfinished one gets
 * `error=interaction_required` there; an unknown one a plain 400.
 */
export async function callback(deps: Deps, id: string | undefined): Promise<string> {
  const found = await liveRequest(deps, id);
  if (!found) throw new PlainError('request not found');
  const { row, hash } = found;
  if (row.identityId === null || !stateOf(id!, row).done) {
    return withQuery(row.redirectUri, [['error', 'interaction_required'], ['error_description', 'the login is not complete'], ['state', row.state]]);
  }
  const code = randomToken();
  if (!(await issueCode(deps.db, hash, await hashOf(code), deps.now()))) throw new PlainError('request not found');
  return withQuery(row.redirectUri, [['state', row.state], ['code', code]]);
}

// ---------------------------------------------------------------------------------------------------------
// Token endpoint (§5.5–5.7)

export interface TokenInput {
  form: Params;
  /** The client id of an `Authorization: Basic` header (undefined when absent). */
  basicClientId?: string;
  issuer: string;
}

export type TokenResponse = Record<string, unknown>;

function clientOf(input: TokenInput, requireBasic = false): ClientId {
  const id = input.basicClientId ?? (requireBasic ? undefined : first(input.form, 'client_id'));
  if (!isClientId(id)) throw new OAuthError('invalid_client', requireBasic ? 'client authentication with HTTP Basic is required' : 'unknown client', 401);
  return id;
}

export async function token(svc: ServiceContext, input: TokenInput): Promise<TokenResponse> {
  const grantType = first(input.form, 'grant_type');
  if (!grantType) throw new OAuthError('invalid_request', 'grant_type missing');
  if (grantType === 'authorization_code') return codeGrant(svc, input);
  if (grantType === 'refresh_token') return refreshGrant(svc, input);
  if (grantType === TOKEN_EXCHANGE_GRANT) return exchangeGrant(svc, input);
  throw new OAuthError('unsupported_grant_type', `${grantType.slice(0, 100)} is not supported`);
}

function tokenBody(t: MintedTokens, scopes: string[], extra: Record<string, unknown> = {}): TokenResponse {
  return {
    access_token: t.accessToken,
    token_type: 'Bearer',
    ...(t.refreshToken ? { refresh_token: t.refreshToken } : {}),
    expires_in: t.expiresIn,
    id_token: t.idToken,
    ...(scopes.length > 0 ? { scope: scopes.join(' ') } : {}),
    ...extra,
  };
}

function identityOf(identity: TokenIdentity): Grant['identity'] {
  return { id: identity.id, name: identity.name, isAdmin: identity.isAdmin || identity.isDefaultAdmin, externalId: identity.externalId, authPolicyId: identity.authPolicyId };
}

async function usableIdentity(deps: Deps, id: string): Promise<TokenIdentity> {
  const identity = await findTokenIdentity(deps.db, id);
  if (!identity || isDisabled(identity, deps.now())) throw new OAuthError('invalid_grant', 'the identity is disabled or gone');
  return identity;
}

async function codeGrant(svc: ServiceContext, input: TokenInput): Promise<TokenResponse> {
  const { deps } = svc;
  const clientId = clientOf(input);
  const code = first(input.form, 'code');
  const verifier = first(input.form, 'code_verifier');
  if (!code || code.length > 256) throw new OAuthError('invalid_request', 'code is required');
  if (!verifier) throw new OAuthError('invalid_request', 'code_verifier is required');
  const codeHash = await hashOf(code);
  const now = deps.now();
  const row = await findAuthRequestByCode(deps.db, codeHash, now);
  if (!row) throw new OAuthError('invalid_grant', 'the code is invalid or expired');
  if (row.consumedAt !== null) {
    // A replayed code: whoever holds it is not the client it was issued to, or the client leaked it;
    // the session it started ends (RFC 6749 §4.1.2).
    await endSession(deps, row.apiSessionId);
    deps.log.warn('oidc authorization code replayed: its session was revoked', { requestId: svc.requestId, apiSessionId: row.apiSessionId });
    throw new OAuthError('invalid_grant', 'the code is invalid or expired');
  }
  if (row.clientId !== clientId) throw new OAuthError('invalid_grant', 'the code was issued to another client');
  if (first(input.form, 'redirect_uri') !== row.redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || !sameText(base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))), row.codeChallenge)) {
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
  }
  const identity = await usableIdentity(deps, row.identityId!);
  const scopes = readJson<string[]>(row.scopes, []);
  const certs = readJson<string[]>(row.certFingerprints, []);
  const configTypes = readJson<string[]>(row.configTypes, []);
  const grant: Grant = {
    issuer: input.issuer,
    clientId,
    identity: identityOf(identity),
    session: {
      z_asid: row.apiSessionId,
      ...(configTypes.length > 0 ? { z_ct: configTypes } : {}),
      z_aid: clientId,
      ...(row.authenticatorId ? { z_authid: row.authenticatorId } : {}),
      ...(scopes.length > 0 ? { scopes } : {}),
      z_cfs: certs.length > 0 ? certs : null,
      z_sdk: readJson<SdkInfoClaim | null>(row.sdkInfo, null),
      z_env: readJson<EnvInfoClaim | null>(row.envInfo, null),
      z_ra: row.remoteAddress,
      z_ice: row.certExtendable,
      z_cer: row.certExtendRequested,
      z_ckrr: row.certKeyRollRequested,
      z_iccc: row.improperChain,
      amr: readJson<string[]>(row.amr, []),
    },
    authTime: Math.floor((row.authTime ?? now) / 1000),
    nonce: row.nonce,
  };
  const tokens = await mintTokens(deps, grant, { withRefresh: scopes.includes('offline_access') });
  const session: OidcSessionRow = {
    id: row.apiSessionId,
    identityId: identity.id,
    authenticatorId: row.authenticatorId ?? '',
    clientId,
    currentJti: tokens.refresh?.jti ?? tokens.access.jti,
    previousJti: null,
    rotatedAt: null,
    createdAt: now,
    updatedAt: now,
    expiresAt: (tokens.refresh?.exp ?? tokens.access.exp) * 1000,
    revokedAt: null,
  };
  if (!(await redeemCode(deps.db, row.idHash, codeHash, uuid(), now, session))) throw new OAuthError('invalid_grant', 'the code is invalid or expired');
  return tokenBody(tokens, scopes, row.state ? { state: row.state } : {});
}

/** A refresh token of this controller: signature, times, `z_t: "r"`, audience, issuer and shape. */
async function verifyRefreshToken(deps: Deps, value: string | undefined): Promise<RefreshClaims | undefined> {
  if (!value) return undefined;
  const p = await verifyControllerJwt(deps, value);
  if (!p || p.z_t !== REFRESH_TOKEN_TYPE || !audienceAccepted(p.aud) || !acceptedIssuer(deps.config, p.iss)) return undefined;
  if (typeof p.sub !== 'string' || typeof p.jti !== 'string' || typeof p.z_asid !== 'string' || !isClientId(p.client_id as string)) return undefined;
  return p as unknown as RefreshClaims;
}

/**
 * The session of a refresh token, if the token is the one in force (`current`), or (for an ID-token-only
 * exchange) the one rotated out less than ROTATION_GRACE_MS ago. A rotated token presented later ends the
 * session: it is in somebody else's hands too (refresh-token reuse detection).
 */
async function sessionForRefresh(svc: ServiceContext, claims: RefreshClaims, allowGrace: boolean): Promise<OidcSessionRow> {
  const { deps } = svc;
  const now = deps.now();
  const session = await findOidcSession(deps.db, claims.z_asid);
  if (!session || session.revokedAt !== null || session.expiresAt <= now || session.identityId !== claims.sub) throw new OAuthError('invalid_grant', 'the refresh token is invalid, expired or revoked');
  if (session.currentJti === claims.jti) return session;
  const recent = session.previousJti === claims.jti && session.rotatedAt !== null && now - session.rotatedAt < ROTATION_GRACE_MS;
  if (recent && allowGrace) return session;
  if (!recent) {
    await endSession(deps, session.id);
    deps.log.warn('oidc refresh token reused after rotation: its session was revoked', { requestId: svc.requestId, apiSessionId: session.id });
  }
  throw new OAuthError('invalid_grant', 'the refresh token has been used already');
}

function scopesOf(claims: { scopes?: string[] }, requested: string | undefined): string[] {
  const held = Array.isArray(claims.scopes) ? claims.scopes : [];
  if (requested === undefined || requested.trim() === '') return held;
  const asked = toSet(requested.split(' ').filter(Boolean));
  if (asked.some((s) => !held.includes(s))) throw new OAuthError('invalid_scope', 'the requested scope exceeds the granted scope');
  return asked;
}

/** Mints the next tokens of a session and rotates its refresh token; the loser of a race gets invalid_grant. */
async function rotate(svc: ServiceContext, claims: RefreshClaims, grant: Grant, only?: 'access'): Promise<MintedTokens> {
  const { deps } = svc;
  const nextJti = uuid();
  const tokens = await mintTokens(deps, grant, { withRefresh: true, refreshJti: nextJti, only });
  if (!(await rotateRefresh(deps.db, claims.z_asid, claims.jti, nextJti, deps.now(), tokens.refresh!.exp * 1000))) {
    throw new OAuthError('invalid_grant', 'the refresh token has been used already');
  }
  return tokens;
}

async function grantFromRefresh(deps: Deps, claims: RefreshClaims, issuer: string, scopes: string[], audience?: string[]): Promise<Grant> {
  const identity = await usableIdentity(deps, claims.sub);
  const session = carriedSession(claims);
  return { issuer, clientId: claims.client_id, audience, identity: identityOf(identity), session: { ...session, ...(scopes.length > 0 ? { scopes } : { scopes: undefined }) }, authTime: claims.auth_time ?? claims.iat };
}

async function refreshGrant(svc: ServiceContext, input: TokenInput): Promise<TokenResponse> {
  const { deps } = svc;
  const clientId = clientOf(input);
  const claims = await verifyRefreshToken(deps, first(input.form, 'refresh_token'));
  if (!claims) throw new OAuthError('invalid_grant', 'the refresh token is invalid, expired or revoked');
  if (claims.client_id !== clientId) throw new OAuthError('invalid_grant', 'the refresh token was issued to another client');
  const scopes = scopesOf(claims, first(input.form, 'scope'));
  await sessionForRefresh(svc, claims, false);
  const tokens = await rotate(svc, claims, await grantFromRefresh(deps, claims, input.issuer, scopes));
  return tokenBody(tokens, scopes);
}

async function exchangeGrant(svc: ServiceContext, input: TokenInput): Promise<TokenResponse> {
  const { deps } = svc;
  clientOf(input, true);
  const f = input.form;
  const subjectToken = first(f, 'subject_token');
  const subjectType = first(f, 'subject_token_type');
  const requested = first(f, 'requested_token_type') || TOKEN_TYPES.refresh;
  if (!subjectToken || !subjectType) throw new OAuthError('invalid_request', 'subject_token and subject_token_type are required');
  if (![TOKEN_TYPES.access, TOKEN_TYPES.refresh, TOKEN_TYPES.id].includes(requested as never)) throw new OAuthError('invalid_request', 'requested_token_type is not supported');
  const audience = f.get('audience')?.filter((a) => a !== '') ?? [];
  if (audience.some((a) => !isClientId(a))) throw new OAuthError('invalid_target', 'audience must be openziti or native');
  const scopeParam = first(f, 'scope');
  if (scopeParam && scopeParam.split(' ').some((s) => s !== '' && s !== 'openid' && s !== 'offline_access')) throw new OAuthError('invalid_scope', 'only openid and offline_access may be requested');

  let claims: RefreshClaims;
  if (subjectType === TOKEN_TYPES.refresh) {
    const refresh = await verifyRefreshToken(deps, subjectToken);
    if (!refresh) throw new OAuthError('invalid_grant', 'subject_token is invalid, expired or revoked');
    // An ID token may still be had for the token just rotated out: SDKs exchange the same token twice.
    await sessionForRefresh(svc, refresh, requested === TOKEN_TYPES.id);
    claims = refresh;
  } else if (subjectType === TOKEN_TYPES.access) {
    const access = await verifyAccessToken(deps, subjectToken);
    if (!access || isRevoked(await currentDenyList(deps, svc.defer), access)) throw new OAuthError('invalid_grant', 'subject_token is invalid, expired or revoked');
    const session = await findOidcSession(deps.db, access.z_asid);
    if (!session || session.revokedAt !== null) throw new OAuthError('invalid_grant', 'subject_token is invalid, expired or revoked');
    claims = { ...access, z_t: REFRESH_TOKEN_TYPE, auth_time: access.iat, client_id: session.clientId };
  } else {
    throw new OAuthError('invalid_request', 'subject_token_type is not supported');
  }
  const scopes = scopeParam ? toSet(scopeParam.split(' ').filter(Boolean)) : Array.isArray(claims.scopes) ? claims.scopes : [];
  const grant = await grantFromRefresh(deps, claims, input.issuer, scopes, audience);
  if (requested === TOKEN_TYPES.id) {
    const tokens = await mintTokens(deps, grant, { withRefresh: false, only: 'id' });
    return { access_token: tokens.idToken, issued_token_type: TOKEN_TYPES.id, token_type: 'N_A' };
  }
  if (requested === TOKEN_TYPES.access) {
    const tokens = await mintTokens(deps, grant, { withRefresh: false, only: 'access' });
    return { access_token: tokens.accessToken, issued_token_type: TOKEN_TYPES.access, token_type: 'Bearer', expires_in: tokens.expiresIn, scope: scopes.join(' ') };
  }
  let tokens: MintedTokens;
  if (subjectType === TOKEN_TYPES.refresh) {
    tokens = await rotate(svc, claims, grant, 'access');
  } else {
    const nextJti = uuid();
    tokens = await mintTokens(deps, grant, { withRefresh: true, refreshJti: nextJti, only: 'access' });
    if (!(await replaceRefresh(deps.db, claims.z_asid, nextJti, deps.now(), tokens.refresh!.exp * 1000))) throw new OAuthError('invalid_grant', 'subject_token is invalid, expired or revoked');
  }
  return {
    access_token: tokens.accessToken,
    issued_token_type: TOKEN_TYPES.refresh,
    token_type: 'Bearer',
    expires_in: tokens.expiresIn,
    scope: scopes.join(' '),
    refresh_token: tokens.refreshToken,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Revocation, end of session, userinfo, introspection (§5.9–5.12)

/**
 * `/oidc/revoke` (RFC 7009): a refresh token ends its whole session (ADR 0013); an access token is revoked
 * alone. Tokens that do not verify are ignored, as the RFC asks.
 */
export async function revoke(svc: ServiceContext, input: TokenInput): Promise<void> {
  const { deps } = svc;
  const clientId = input.basicClientId ?? first(input.form, 'client_id');
  if (clientId !== undefined && !isClientId(clientId)) throw new OAuthError('invalid_client', 'unknown client', 401);
  const value = first(input.form, 'token');
  if (!value) throw new OAuthError('invalid_request', 'token is required');
  const hint = first(input.form, 'token_type_hint');
  if (hint !== 'access_token') {
    const refresh = await verifyRefreshToken(deps, value);
    if (refresh) {
      await endSession(deps, refresh.z_asid);
      return;
    }
  }
  const access = await verifyAccessToken(deps, value);
  if (access) {
    await atomic(deps.db, [insertRevocation(deps.db, 'token', access.jti, FOREVER, deps.now())]);
    noteRevocation(deps, 'token', access.jti);
  }
}

export interface EndSessionInput {
  params: Params;
  base: string;
}

/**
 * `/oidc/end_session`: with a valid `id_token_hint`, ends the session it names (the controller writes a
 * revocation nobody reads, §5.9); then to the post-logout URI (same rules as redirect URIs) or `logged-out`.
 */
export async function endSessionRequest(svc: ServiceContext, input: EndSessionInput): Promise<string> {
  const { deps } = svc;
  const p = input.params;
  const hint = first(p, 'id_token_hint');
  const clientId = first(p, 'client_id');
  const target = first(p, 'post_logout_redirect_uri');
  const state = first(p, 'state');
  if (clientId !== undefined && !isClientId(clientId)) throw new OAuthError('invalid_request', 'unknown client_id');
  let asid: string | undefined;
  if (hint) {
    const claims = await verifyControllerJwt(deps, hint);
    if (!claims || !audienceAccepted(claims.aud) || !acceptedIssuer(deps.config, claims.iss)) throw new OAuthError('invalid_request', 'id_token_hint is invalid');
    if (clientId !== undefined && claims.azp !== undefined && claims.azp !== clientId) throw new OAuthError('invalid_request', 'id_token_hint was issued to another client');
    if (typeof claims.z_asid === 'string') asid = claims.z_asid;
  }
  if (target !== undefined && !postLogoutAllowed(target, (await effectiveOidcSettings(deps)).postLogoutUris)) {
    throw new OAuthError('invalid_request', 'post_logout_redirect_uri invalid');
  }
  if (asid) await endSession(deps, asid);
  return withQuery(target ?? `${input.base}/logged-out`, [['state', state]]);
}

/** `/oidc/userinfo`: the subject and name of a live access token; undefined when it does not verify. */
export async function userinfo(svc: ServiceContext, value: string | undefined): Promise<{ sub: string; name: string } | undefined> {
  if (!value) return undefined;
  const claims = await verifyAccessToken(svc.deps, value);
  if (!claims || isRevoked(await currentDenyList(svc.deps, svc.defer), claims)) return undefined;
  return { sub: claims.sub, name: claims.name };
}

/** `/oidc/oauth/introspect` (RFC 7662) for an authenticated client: live access and refresh tokens are active. */
export async function introspect(svc: ServiceContext, input: TokenInput): Promise<Record<string, unknown>> {
  const { deps } = svc;
  clientOf(input);
  const value = first(input.form, 'token');
  if (!value) return { active: false };
  const access = await verifyAccessToken(deps, value);
  if (access && !isRevoked(await currentDenyList(deps, svc.defer), access)) {
    return { active: true, token_type: 'Bearer', sub: access.sub, client_id: access.z_aid, aud: access.aud, iss: access.iss, exp: access.exp, iat: access.iat, scope: (access.scopes ?? []).join(' '), jti: access.jti };
  }
  const refresh = await verifyRefreshToken(deps, value);
  if (refresh) {
    const session = await findOidcSession(deps.db, refresh.z_asid);
    if (session && session.revokedAt === null && session.currentJti === refresh.jti) {
      return { active: true, token_type: 'refresh_token', sub: refresh.sub, client_id: refresh.client_id, aud: refresh.aud, iss: refresh.iss, exp: refresh.exp, iat: refresh.iat, scope: (refresh.scopes ?? []).join(' '), jti: refresh.jti };
    }
  }
  return { active: false };
}
