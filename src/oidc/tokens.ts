/**
 * The controller's tokens (reference oidc.md §6): access (`z_t: "a"`), ID and refresh (`z_t: "r"`) tokens
 * with OpenZiti's claims, signed ES256 with the server certificate's key (ID tokens RS256, src/oidc/keys.ts). Beyond the controller's claims,
 * access tokens carry `amr` (so `isMfaComplete` is true after TOTP, §11.6), `name` and `z_apid` (the auth
 * policy), so that a request presenting one needs no store read to know its caller, and `z_iatms` (the
 * issue time in milliseconds, which revocations compare against; ADR 0013).
 */
import { SignJWT } from 'jose';
import type { Deps } from '../deps.js';
import { toBase64 } from '../lib/encoding.js';
import { uuid } from '../lib/ids.js';
import { idTokenKey, signingKey } from './keys.js';

export const ACCESS_TOKEN_TYPE = 'a';
export const REFRESH_TOKEN_TYPE = 'r';
export const SERVICE_TOKEN_TYPE = 's';

/** Only the fields the client sent, non-empty (reference oidc.md §6.1: the controller's `rest_model.SdkInfo`). */
export interface SdkInfoClaim {
  appId?: string;
  appVersion?: string;
  branch?: string;
  revision?: string;
  type?: string;
  version?: string;
}
export interface EnvInfoClaim {
  arch?: string;
  domain?: string;
  hostname?: string;
  os?: string;
  osRelease?: string;
  osVersion?: string;
}

/** The custom claims an access and a refresh token share (§6.1), carried unchanged across refreshes. */
export interface SessionClaims {
  /** API session id. */
  z_asid: string;
  /** Identity is an admin (omitted when false). */
  z_ia?: true;
  z_eid?: string;
  z_ct?: string[];
  /** Client (application) id. */
  z_aid?: string;
  z_authid?: string;
  scopes?: string[];
  z_cfs: string[] | null;
  z_sdk: SdkInfoClaim | null;
  z_env: EnvInfoClaim | null;
  z_ra: string;
  z_ice: boolean;
  z_cer: boolean;
  z_ckrr: boolean;
  z_iccc: boolean;
  /** Authentication methods used (`password`, `cert`, `ext-jwt`, `totp`). */
  amr: string[];
  /** Identity name and auth policy id (this controller's additions). */
  name: string;
  z_apid: string;
}

export interface AccessClaims extends SessionClaims {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  z_t: typeof ACCESS_TOKEN_TYPE;
  /** Issue time in Unix milliseconds: revocations compare against it, so a change and a login in the same second are told apart. */
  z_iatms: number;
}

export interface RefreshClaims extends SessionClaims {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  auth_time: number;
  client_id: string;
  z_t: typeof REFRESH_TOKEN_TYPE;
}

/** Who and what a set of tokens is minted for. */
export interface Grant {
  issuer: string;
  clientId: string;
  /** `aud` of the access token: `[clientId]` unless an exchange names an audience. */
  audience?: string[];
  identity: { id: string; name: string; isAdmin: boolean; externalId: string | null; authPolicyId: string };
  session: Omit<SessionClaims, 'z_ia' | 'z_eid' | 'name' | 'z_apid'>;
  /** Login time (Unix seconds). */
  authTime: number;
  nonce?: string | null;
}

export interface MintedTokens {
  accessToken: string;
  access: AccessClaims;
  idToken: string;
  refreshToken?: string;
  refresh?: RefreshClaims;
  expiresIn: number;
}

/** Signs with the server key (ES256), or the ID-token key (RS256) for `id`. */
async function sign(deps: Deps, claims: object, id = false): Promise<string> {
  const key = id ? await idTokenKey(deps) : await signingKey(deps);
  return new SignJWT({ ...claims }).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
}

function base64url(bytes: ArrayBuffer | Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** `at_hash`: the left half of SHA-256 of the access token, base64url. */
async function accessTokenHash(token: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
  return base64url(digest.subarray(0, 16));
}

function sessionClaims(grant: Grant): SessionClaims {
  const { identity, session } = grant;
  return {
    ...session,
    ...(identity.isAdmin ? { z_ia: true as const } : {}),
    ...(identity.externalId ? { z_eid: identity.externalId } : {}),
    name: identity.name,
    z_apid: identity.authPolicyId,
  };
}

/**
 * Mints an access token and an ID token (or only one of them), and a refresh token when `withRefresh`
 * (scope `offline_access`).
 * The refresh token of a new family shares the access token's `jti`, as the controller's does (§6.3);
 * `refreshJti` names a rotated one.
 */
export async function mintTokens(deps: Deps, grant: Grant, options: { withRefresh: boolean; refreshJti?: string; only?: 'access' | 'id' }): Promise<MintedTokens> {
  const { accessTokenSeconds, idTokenSeconds, refreshTokenSeconds } = deps.config.oidc;
  const nowMs = deps.now();
  const now = Math.floor(nowMs / 1000);
  const jti = uuid();
  const custom = sessionClaims(grant);
  const access: AccessClaims = {
    ...custom,
    iss: grant.issuer,
    sub: grant.identity.id,
    aud: grant.audience && grant.audience.length > 0 ? grant.audience : [grant.clientId],
    exp: now + accessTokenSeconds,
    iat: now,
    nbf: now,
    jti,
    z_t: ACCESS_TOKEN_TYPE,
    z_iatms: nowMs,
  };
  // An exchange asks for one kind of token: the other is not signed (`only`).
  const accessToken = options.only === 'id' ? '' : await sign(deps, access);
  const id = {
    iss: grant.issuer,
    sub: grant.identity.id,
    aud: [grant.clientId],
    exp: now + idTokenSeconds,
    iat: now,
    auth_time: grant.authTime,
    ...(grant.nonce ? { nonce: grant.nonce } : {}),
    amr: custom.amr,
    azp: grant.clientId,
    client_id: grant.clientId,
    ...(accessToken ? { at_hash: await accessTokenHash(accessToken) } : {}),
    name: grant.identity.name,
    z_ia: grant.identity.isAdmin,
    ...(grant.identity.externalId ? { z_eid: grant.identity.externalId } : {}),
    z_asid: custom.z_asid,
  };
  const idToken = options.only === 'access' ? '' : await sign(deps, id, true);
  let refresh: RefreshClaims | undefined;
  let refreshToken: string | undefined;
  if (options.withRefresh) {
    refresh = {
      ...custom,
      iss: grant.issuer,
      sub: grant.identity.id,
      aud: [grant.clientId],
      exp: now + refreshTokenSeconds,
      iat: now,
      nbf: now,
      jti: options.refreshJti ?? jti,
      auth_time: grant.authTime,
      client_id: grant.clientId,
      z_t: REFRESH_TOKEN_TYPE,
    };
    refreshToken = await sign(deps, refresh);
  }
  return { accessToken, access, idToken, refreshToken, refresh, expiresIn: accessTokenSeconds };
}

/** The session claims of a refresh or access token, to carry into the next tokens. */
export function carriedSession(claims: SessionClaims): Grant['session'] {
  return {
    z_asid: claims.z_asid,
    ...(claims.z_ct && claims.z_ct.length > 0 ? { z_ct: claims.z_ct } : {}),
    ...(claims.z_aid ? { z_aid: claims.z_aid } : {}),
    ...(claims.z_authid ? { z_authid: claims.z_authid } : {}),
    ...(claims.scopes && claims.scopes.length > 0 ? { scopes: claims.scopes } : {}),
    z_cfs: claims.z_cfs ?? null,
    z_sdk: claims.z_sdk ?? null,
    z_env: claims.z_env ?? null,
    z_ra: claims.z_ra ?? '',
    z_ice: Boolean(claims.z_ice),
    z_cer: Boolean(claims.z_cer),
    z_ckrr: Boolean(claims.z_ckrr),
    z_iccc: Boolean(claims.z_iccc),
    amr: Array.isArray(claims.amr) ? claims.amr : [],
  };
}

/** The service types a service-access token names (`z_st`). */
export type ServiceSessionType = 'Dial' | 'Bind';

/**
 * The service-access token of `POST /sessions` for a session authenticated by an access token (reference
 * oidc.md §6.4, §7.4): `iss` = the API origin (no `/oidc`), `sub` = the service, `aud` = `["openziti"]`,
 * `jti` = the session id, `z_asid`, `z_iid` (identity), `z_st` (`Dial`/`Bind`), `z_t: "s"`. Nothing is
 * stored. It lives a year, as the controller's (routers bind it to its API session through `z_asid`),
 * unless `expiresAt` (Unix ms) is given.
 *
 * `POST /sessions` with a bearer caller (`caller.oidc` set) checks policies as for any caller, then calls
 * `mintServiceAccessToken(deps, { identityId: caller.identity.id, apiSessionId: caller.apiSession.id,
 * serviceId, type, sessionId })` with a fresh session id and answers it as `data.token` (201, nothing stored).
 */
export async function mintServiceAccessToken(
  deps: Deps,
  input: { identityId: string; apiSessionId: string; serviceId: string; type: ServiceSessionType; sessionId: string; expiresAt?: number },
): Promise<string> {
  const now = Math.floor(deps.now() / 1000);
  const exp = input.expiresAt !== undefined ? Math.floor(input.expiresAt / 1000) : now + 365 * 24 * 3600;
  return sign(deps, {
    iss: deps.config.apiOrigin,
    sub: input.serviceId,
    aud: ['openziti'],
    exp,
    iat: now,
    jti: input.sessionId,
    z_asid: input.apiSessionId,
    z_iid: input.identityId,
    z_st: input.type,
    z_t: SERVICE_TOKEN_TYPE,
  });
}
