import { eq } from 'drizzle-orm';
import { decodeJwt, SignJWT } from 'jose';
import type { Db } from '../../src/db/client.js';
import { pkiMaterial } from '../../src/db/schema/index.js';
import { decrypt, deriveStorageKey } from '../../src/pki/secrets.js';
import type { Reply, TestClient } from '../helpers/client.js';

/**
 * An OIDC client for tests, doing what the SDKs and the Admin Console do (reference oidc.md §5.0), step by
 * step so that tests can look at every answer. It never asserts: tests assert on what it returns.
 */

export const REDIRECT = 'http://127.0.0.1:20314/auth/callback';
export const FORM = 'application/x-www-form-urlencoded';

function base64url(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  return btoa(String.fromCharCode(...view)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(40)));
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  return { verifier, challenge };
}

export function form(values: Record<string, string | string[] | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) for (const item of v === undefined ? [] : Array.isArray(v) ? v : [v]) p.append(k, item);
  return p.toString();
}

export function basic(clientId: string): string {
  return `Basic ${btoa(`${clientId}:`)}`;
}

export interface Flow {
  id: string;
  verifier: string;
  state: string;
  clientId: string;
  redirectUri: string;
  /** The authorize answer. */
  authorize: Reply;
}

export interface AuthorizeOptions {
  clientId?: string;
  redirectUri?: string;
  method?: 'password' | 'cert' | 'ext-jwt';
  scope?: string;
  configTypes?: string[];
  nonce?: string;
  headers?: Record<string, string>;
  /** POST with the parameters in the query (as the C SDK does). */
  post?: boolean;
}

export class OidcClient {
  constructor(readonly client: () => TestClient) {}

  /** `/oidc/authorize` with PKCE; the auth request id from the Location's `authRequestID`. */
  async authorize(o: AuthorizeOptions = {}): Promise<Flow> {
    const { verifier, challenge } = await pkce();
    const state = crypto.randomUUID();
    const clientId = o.clientId ?? 'openziti';
    const redirectUri = o.redirectUri ?? REDIRECT;
    const query = form({
      client_id: clientId,
      response_type: 'code',
      scope: o.scope ?? 'openid offline_access',
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      nonce: o.nonce,
      method: o.method,
      configTypes: o.configTypes,
    });
    const reply = await this.client().request(`/oidc/authorize?${query}`, { method: o.post ? 'POST' : 'GET', headers: o.headers });
    const location = reply.headers.get('location') ?? '';
    const id = location ? (new URL(location).searchParams.get('authRequestID') ?? '') : '';
    return { id, verifier, state, clientId, redirectUri, authorize: reply };
  }

  /** A primary login, JSON (SDK) or form (browser, Go SDK) body. */
  login(flow: Flow, path: 'username' | 'password' | 'cert' | 'ext-jwt', body: Record<string, unknown>, options: { form?: boolean; headers?: Record<string, string>; client?: TestClient } = {}): Promise<Reply> {
    const c = options.client ?? this.client();
    if (options.form) {
      return c.request(`/oidc/login/${path}`, { method: 'POST', raw: form({ id: flow.id, ...(body as Record<string, string>) }), headers: { 'content-type': FORM, ...options.headers } });
    }
    return c.request(`/oidc/login/${path}`, { method: 'POST', body: { id: flow.id, ...body }, headers: { accept: 'application/json', ...options.headers } });
  }

  totp(flow: Flow, code: string): Promise<Reply> {
    return this.client().request('/oidc/login/totp', { method: 'POST', body: { id: flow.id, code } });
  }

  /** Follows a login's 302 to the callback; the code from the redirect URI's query. */
  async callback(flow: Flow): Promise<{ reply: Reply; code: string; url: URL | undefined }> {
    const reply = await this.client().request(`/oidc/authorize/callback?id=${encodeURIComponent(flow.id)}`);
    const location = reply.headers.get('location');
    const url = location ? new URL(location) : undefined;
    return { reply, code: url?.searchParams.get('code') ?? '', url };
  }

  token(values: Record<string, string | undefined>, headers: Record<string, string> = {}): Promise<Reply> {
    return this.client().request('/oidc/oauth/token', { method: 'POST', raw: form(values), headers: { 'content-type': FORM, ...headers } });
  }

  redeem(flow: Flow, code: string, overrides: Record<string, string | undefined> = {}): Promise<Reply> {
    return this.token({ grant_type: 'authorization_code', code, code_verifier: flow.verifier, client_id: flow.clientId, redirect_uri: flow.redirectUri, ...overrides });
  }

  /** The whole password flow (no second factor): the token response. */
  async passwordTokens(username: string, password: string, o: AuthorizeOptions = {}): Promise<TokenSet> {
    const flow = await this.authorize(o);
    const login = await this.login(flow, 'username', { username, password });
    if (login.status !== 302) throw new Error(`login failed: ${login.status} ${login.text}`);
    const { code } = await this.callback(flow);
    const reply = await this.redeem(flow, code);
    if (reply.status !== 200) throw new Error(`token failed: ${reply.status} ${reply.text}`);
    return reply.body as TokenSet;
  }

  refresh(refreshToken: string, clientId = 'openziti'): Promise<Reply> {
    return this.token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
  }

  exchange(subject: string, subjectType: 'access_token' | 'refresh_token' | 'id_token', requested: 'access_token' | 'refresh_token' | 'id_token' | undefined, clientId = 'native'): Promise<Reply> {
    return this.token(
      {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: subject,
        subject_token_type: `urn:ietf:params:oauth:token-type:${subjectType}`,
        requested_token_type: requested ? `urn:ietf:params:oauth:token-type:${requested}` : undefined,
      },
      { authorization: basic(clientId) },
    );
  }
}

export interface TokenSet {
  access_token: string;
  id_token: string;
  refresh_token?: string;
  token_type: string;
  expires_in: number;
  scope?: string;
}

export function claims(token: string): Record<string, any> {
  return decodeJwt(token) as Record<string, any>;
}

/** A request with `Authorization: Bearer`. */
export function bearer(client: TestClient, path: string, token: string, options: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> {
  return client.request(path, { ...options, headers: { authorization: `Bearer ${token}`, ...options.headers } });
}

/** The CONTROLLER_SECRET of each test runtime (Node suites, workerd). */
const TEST_SECRETS = ['test-controller-secret-0123456789', 'workers-test-secret-0123456789'];

/**
 * Re-signs claims with the controller's own server key (read from the store with the test runtime's
 * secret): tokens with a valid signature but chosen claims (expired, another type, audience or issuer).
 */
export async function forge(db: Db, claims: Record<string, unknown>, kid: string): Promise<string> {
  const [row] = await db.select().from(pkiMaterial).where(eq(pkiMaterial.name, 'server'));
  let pkcs8: Uint8Array | undefined;
  for (const secret of TEST_SECRETS) {
    try {
      pkcs8 = await decrypt(await deriveStorageKey(secret), row.encryptedKey);
      break;
    } catch {
      // the other runtime's secret
    }
  }
  if (!pkcs8) throw new Error('no test secret decrypts the server key');
  const key = await crypto.subtle.importKey('pkcs8', pkcs8 as BufferSource, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' }).sign(key);
}

/** Signs claims with a key of its own under the controller's kid: a token from another key. */
export async function foreign(claims: Record<string, unknown>, kid: string): Promise<string> {
  const { privateKey } = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' }).sign(privateKey);
}

/** Polls until `check` holds or `boundMs` (plus slack) passes; returns how long it took (ms), or -1. */
export async function within(boundMs: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  while (Date.now() - start <= boundMs + 1_500) {
    if (await check()) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 50));
  }
  return -1;
}
