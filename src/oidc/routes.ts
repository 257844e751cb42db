/**
 * The OIDC provider's HTTP surface under `/oidc` (reference oidc.md §4): plain Hono routes (they are not in
 * the Swagger specifications), each parsing and checking its own input, then calling src/oidc/flow.ts.
 * Answers: OAuth JSON on the token, revoke and end-session endpoints, OpenZiti's error envelope on the login
 * endpoints (or an HTML page to a browser asking for one), plain text where no redirect URI can be trusted.
 */
import { Hono, type Context } from 'hono';
import { clientAddress } from '../auth/client-address.js';
import { bearerCandidates } from '../auth/ext-jwt/verify.js';
import type { AuthenticateBody } from '../auth/methods/index.js';
import type { Runtime, ServiceContext } from '../deps.js';
import { ApiError } from '../errors.js';
import { authenticate as authenticateSchema } from '../generated/client-schemas.js';
import { errorResponse, json, replaceResponse, withHeaders } from '../http/envelope.js';
import { mediaType, parseJsonBody, readBodyCapped, zodIssueToError } from '../http/validate.js';
import { fromBase64 } from '../lib/encoding.js';
import { issuerFor } from './clients.js';
import {
  authorize,
  callback,
  endSessionRequest,
  introspect,
  login,
  loginState,
  loginTotp,
  OAuthError,
  PlainError,
  revoke,
  token,
  TOKEN_EXCHANGE_GRANT,
  userinfo,
  type LoginPath,
  type LoginState,
  type Params,
} from './flow.js';
import { publishedJwks } from './keys.js';
import { loginPage, totpPage } from './pages.js';

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** The operation name a `/oidc` request is logged under (the request log line's `operationId`). */
function named(c: Context, name: string): void {
  c.set('operationId' as never, `oidc.${name}` as never);
}

function queryParams(url: string): Params {
  const out: Params = new Map();
  for (const [k, v] of new URL(url).searchParams) out.set(k, [...(out.get(k) ?? []), v]);
  return out;
}

function merge(a: Params, b: Params): Params {
  const out: Params = new Map(a);
  for (const [k, v] of b) out.set(k, [...(out.get(k) ?? []), ...v]);
  return out;
}

/** A form body (1 MiB at most); an empty map for other media types or no body. */
async function formParams(c: Context, runtime: Runtime): Promise<Params> {
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return new Map();
  const raw = await readBodyCapped(runtime, c.req.raw, c.env);
  if (raw.byteLength === 0 || mediaType(c.req.header('content-type')) !== FORM) return new Map();
  return queryParams(`http://x/?${new TextDecoder().decode(raw)}`);
}

/** The client id of `Authorization: Basic` (`<client_id>:` with an empty secret, form-encoded, RFC 6749 §2.3.1). */
function basicClientId(c: Context): string | undefined {
  const header = c.req.header('authorization');
  if (!header || !/^basic /i.test(header)) return undefined;
  try {
    // Standard or URL-safe base64, padded or not (the C SDK pads its URL-safe form).
    const b64 = header.slice(6).trim().replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
    const decoded = new TextDecoder().decode(fromBase64(b64 + '='.repeat((4 - (b64.length % 4)) % 4)));
    const colon = decoded.indexOf(':');
    return decodeURIComponent((colon < 0 ? decoded : decoded.slice(0, colon)).replace(/\+/g, ' '));
  } catch {
    return '';
  }
}

function oauthError(e: OAuthError): Response {
  return json({ error: e.error, error_description: e.description }, e.status, NO_STORE);
}

function plain(text: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(text, { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers } });
}

function redirect(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 302, headers: { location, ...NO_STORE, ...headers } });
}

/**
 * HTML only when the client ranks it above JSON; no `Accept` (SDKs) means JSON (§5.2).
 */
function wantsHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranked = accept
    .split(',')
    .map((part, i) => {
      const [type, ...params] = part.trim().toLowerCase().split(';');
      const q = Number(params.map((p) => p.trim()).find((p) => p.startsWith('q='))?.slice(2) ?? '1');
      return { type: type.trim(), q: Number.isFinite(q) ? q : 0, i };
    })
    .filter((e) => e.q > 0 && (e.type === JSON_TYPE || e.type === 'text/html'))
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return ranked[0]?.type === 'text/html';
}

function html(body: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      'x-frame-options': 'DENY',
      ...NO_STORE,
      ...headers,
    },
  });
}

const ENV_FORM = { arch: 'envArch', os: 'envOs', osRelease: 'envOsRelease', osVersion: 'envOsVersion', hostname: 'envHostname', domain: 'envDomain' } as const;
const SDK_FORM = { appId: 'sdkAppId', appVersion: 'sdkAppVersion', branch: 'sdkBranch', revision: 'sdkRevision', type: 'sdkType', version: 'sdkVersion' } as const;

/** A login body from form fields (`envArch`, `sdkAppId`; the Go SDK's `sdkAppID` too, §5.2). */
function formLoginBody(form: Params): Record<string, unknown> {
  const one = (name: string) => form.get(name)?.[0];
  const group = (names: Record<string, string>, extra: Record<string, string> = {}) => {
    const out: Record<string, string> = {};
    for (const [field, name] of Object.entries(names)) {
      const v = one(name) ?? (extra[field] ? one(extra[field]) : undefined);
      if (v !== undefined && v !== '') out[field] = v;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  };
  const body: Record<string, unknown> = {};
  for (const k of ['id', 'username', 'password', 'code']) if (one(k) !== undefined) body[k] = one(k);
  const configTypes = form.get('configTypes')?.filter(Boolean);
  if (configTypes && configTypes.length > 0) body.configTypes = configTypes;
  const env = group(ENV_FORM);
  if (env) body.envInfo = env;
  const sdk = group(SDK_FORM, { appId: 'sdkAppID' });
  if (sdk) body.sdkInfo = sdk;
  return body;
}

/** The body of a login or TOTP POST: a form or JSON (anything else is 415); an empty body is an empty form. */
async function loginBody(c: Context, runtime: Runtime): Promise<Record<string, unknown>> {
  const raw = await readBodyCapped(runtime, c.req.raw, c.env);
  if (raw.byteLength === 0) return {};
  const media = mediaType(c.req.header('content-type'));
  if (media === FORM) return formLoginBody(queryParams(`http://x/?${new TextDecoder().decode(raw)}`));
  if (media === JSON_TYPE) {
    const parsed = parseJsonBody(raw);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ApiError('COULD_NOT_VALIDATE', { field: 'body', reason: 'body must be a JSON object' });
    return parsed as Record<string, unknown>;
  }
  throw new ApiError('UNSUPPORTED_MEDIA', { code: 'UNHANDLED', message: `unsupported media type ${media ?? 'application/octet-stream'}, expected ${FORM} or ${JSON_TYPE}` }, 415);
}

/** The request's auth request id: the body's `id`, else the query's `authRequestID`, else `id` (§5.2). */
function requestId(c: Context, body: Record<string, unknown>): string | undefined {
  const fromBody = typeof body.id === 'string' && body.id !== '' ? body.id : undefined;
  return fromBody ?? c.req.query('authRequestID') ?? c.req.query('id') ?? undefined;
}

/** The credentials and client information of a login body, checked as `POST /authenticate` checks them. */
function credentials(body: Record<string, unknown>): AuthenticateBody {
  const { configTypes, envInfo, password, sdkInfo, username } = body;
  const input = Object.fromEntries(Object.entries({ configTypes, envInfo, password, sdkInfo, username }).filter(([, v]) => v !== undefined));
  const result = authenticateSchema.safeParse(input);
  if (!result.success) throw zodIssueToError(result.error.issues[0], input);
  return result.data as AuthenticateBody;
}

export function oidcRoutes(runtime: Runtime): Hono {
  const app = new Hono();

  const context = async (c: Context): Promise<ServiceContext> => {
    const deps = await runtime.deps(c.env);
    const rid = c.get('requestId' as never) as string;
    let address: string | undefined;
    return {
      deps,
      caller: undefined,
      requestId: rid,
      clientAddress: () => (address ??= clientAddress(c, deps.config.trustedProxies)),
      defer: (p) => runtime.waitUntil(p.catch((e) => deps.log.error('deferred write failed', { requestId: rid, error: String(e) })), executionCtx(c)),
      bearerTokens: () => bearerCandidates(c.req.header('authorization')),
    };
  };
  const issuer = async (c: Context) => issuerFor((await runtime.deps(c.env)).config, c.req.url);

  app.use(async (c, next) => {
    await next();
    // Browsers may read what the login steps hand back (the controller exposes none, §4).
    replaceResponse(c, withHeaders(c.res, { 'access-control-expose-headers': 'auth-request-id, totp-required, location' }, runtime.remakeForHeaders === true));
  });

  // Discovery and keys (§3.2, §3.4): only what works is advertised (§11.8).
  app.on(['GET', 'POST'], '/.well-known/openid-configuration', async (c) => {
    named(c, 'discovery');
    const iss = await issuer(c);
    return json({
      issuer: iss,
      authorization_endpoint: `${iss}/authorize`,
      token_endpoint: `${iss}/oauth/token`,
      introspection_endpoint: `${iss}/oauth/introspect`,
      userinfo_endpoint: `${iss}/userinfo`,
      revocation_endpoint: `${iss}/revoke`,
      end_session_endpoint: `${iss}/end_session`,
      jwks_uri: `${iss}/keys`,
      scopes_supported: ['openid', 'offline_access'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token', TOKEN_EXCHANGE_GRANT],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
      introspection_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
      code_challenge_methods_supported: ['S256'],
      claims_supported: ['sub', 'aud', 'exp', 'iat', 'iss', 'auth_time', 'nonce', 'amr', 'at_hash', 'azp', 'client_id', 'name', 'z_ia', 'z_eid', 'z_asid'],
      request_parameter_supported: false,
      ui_locales_supported: ['en'],
    });
  });
  app.all('/keys', async (c) => {
    named(c, 'keys');
    return json(await publishedJwks(await runtime.deps(c.env)), 200, { 'cache-control': 'public, max-age=60' });
  });
  app.all('/healthz', (c) => (named(c, 'healthz'), json({ status: 'ok' })));
  app.all('/ready', (c) => (named(c, 'ready'), json({ status: 'ok' })));

  // Authorize (§5.1).
  app.on(['GET', 'POST'], '/authorize', async (c) => {
    named(c, 'authorize');
    const svc = await context(c);
    try {
      const params = merge(queryParams(c.req.url), await formParams(c, runtime));
      const location = await authorize(svc, { params, base: await issuer(c), clientCertificate: () => runtime.clientCertificate(c.req.raw, c.env) });
      return redirect(location);
    } catch (e) {
      if (e instanceof PlainError) return plain(e.message, 400);
      throw e;
    }
  });

  // Login pages (§5.2): GET shows the form (or says to POST) with the id in `auth-request-id`.
  for (const page of ['username', 'password', 'cert', 'ext-jwt'] as const) {
    app.get(`/login/${page}`, async (c) => {
      named(c, 'loginPage');
      // Echoed into a header and a page: only what an id can look like.
      const raw = c.req.query('authRequestID') ?? c.req.query('id') ?? '';
      const id = /^[A-Za-z0-9-]{1,64}$/.test(raw) ? raw : '';
      const headers = { 'auth-request-id': id };
      if (page === 'cert' || page === 'ext-jwt') return plain('please POST to this URL', 200, headers);
      return html(loginPage(await issuer(c), id), 200, headers);
    });
    app.post(`/login/${page}`, async (c) => {
      named(c, `login.${page}`);
      const svc = await context(c);
      const htmlWanted = wantsHtml(c.req.header('accept'));
      let id: string | undefined;
      try {
        const body = await loginBody(c, runtime);
        id = requestId(c, body);
        const state = await login(svc, { path: page as LoginPath, id, body: credentials(body), clientCertificate: () => runtime.clientCertificate(c.req.raw, c.env) });
        return loginAnswer(state, await issuer(c), htmlWanted);
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        if (htmlWanted && (page === 'username' || page === 'password')) return html(loginPage(await issuer(c), id ?? '', 'The username or password is not valid.'), e.status);
        return errorResponse(e, svc.requestId);
      }
    });
  }

  /** Done: to the callback; otherwise 200 with what is outstanding (`totp-required`, `authQueries`). */
  function loginAnswer(state: LoginState, base: string, htmlWanted: boolean): Response {
    if (state.done) return redirect(`${base}/authorize/callback?id=${encodeURIComponent(state.id)}`);
    const headers: Record<string, string> = { 'auth-request-id': state.id, ...(state.totpRequired ? { 'totp-required': 'true' } : {}) };
    if (htmlWanted && state.totpRequired) return html(totpPage(base, state.id), 200, headers);
    return json({ authQueries: state.authQueries }, 200, { ...headers, ...NO_STORE });
  }

  // Second factor (§5.3).
  app.post('/login/totp', async (c) => {
    named(c, 'login.totp');
    const svc = await context(c);
    const htmlWanted = wantsHtml(c.req.header('accept'));
    let id: string | undefined;
    try {
      const body = await loginBody(c, runtime);
      id = requestId(c, body);
      const code = typeof body.code === 'string' ? body.code : undefined;
      return loginAnswer(await loginTotp(svc, id, code), await issuer(c), htmlWanted);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      if (htmlWanted && id && e.status !== 401) return html(totpPage(await issuer(c), id, 'The code is not valid.'), e.status);
      return errorResponse(e, svc.requestId);
    }
  });
  app.get('/login/auth-queries', async (c) => {
    named(c, 'login.authQueries');
    const svc = await context(c);
    try {
      const state = await loginState(svc.deps, c.req.query('id') ?? c.req.query('authRequestID'));
      return json({ authQueries: state.authQueries }, 200, { ...(state.totpRequired ? { 'totp-required': 'true' } : {}), ...NO_STORE });
    } catch (e) {
      if (e instanceof ApiError) return errorResponse(e, svc.requestId);
      throw e;
    }
  });

  // Callback (§5.4).
  app.all('/authorize/callback', async (c) => {
    named(c, 'callback');
    const svc = await context(c);
    try {
      return redirect(await callback(svc.deps, c.req.query('id')));
    } catch (e) {
      if (e instanceof PlainError) return plain(e.message, 400);
      throw e;
    }
  });

  // Token endpoint (§5.5–5.7): form bodies only.
  app.post('/oauth/token', async (c) => {
    named(c, 'token');
    const svc = await context(c);
    try {
      if (mediaType(c.req.header('content-type')) !== FORM) throw new OAuthError('invalid_request', `the body must be ${FORM}`);
      const body = await token(svc, { form: await formParams(c, runtime), basicClientId: basicClientId(c), issuer: await issuer(c) });
      return json(body, 200, NO_STORE);
    } catch (e) {
      if (e instanceof OAuthError) return oauthError(e);
      if (e instanceof ApiError && e.status < 500) return oauthError(new OAuthError('invalid_request', e.message, e.status === 413 ? 413 : 400));
      throw e;
    }
  });

  // Revocation (§5.12); `/oauth/revoke` too, where the Admin Console sends it.
  for (const path of ['/revoke', '/oauth/revoke']) {
    app.post(path, async (c) => {
      named(c, 'revoke');
      const svc = await context(c);
      try {
        await revoke(svc, { form: await formParams(c, runtime), basicClientId: basicClientId(c), issuer: await issuer(c) });
        return new Response(null, { status: 200, headers: { 'content-type': JSON_TYPE, ...NO_STORE } });
      } catch (e) {
        if (e instanceof OAuthError) return oauthError(e);
        throw e;
      }
    });
  }

  app.post('/oauth/introspect', async (c) => {
    named(c, 'introspect');
    const svc = await context(c);
    try {
      return json(await introspect(svc, { form: await formParams(c, runtime), basicClientId: basicClientId(c), issuer: await issuer(c) }), 200, NO_STORE);
    } catch (e) {
      if (e instanceof OAuthError) return oauthError(e);
      throw e;
    }
  });

  app.all('/userinfo', async (c) => {
    named(c, 'userinfo');
    const svc = await context(c);
    const value = bearerCandidates(c.req.header('authorization'))[0] ?? (await formParams(c, runtime)).get('access_token')?.[0];
    const info = await userinfo(svc, value);
    return info ? json(info, 200, NO_STORE) : plain('invalid or missing access token', 401, { 'www-authenticate': 'Bearer error="invalid_token"' });
  });

  // Logout (§5.9).
  app.all('/end_session', async (c) => {
    named(c, 'endSession');
    const svc = await context(c);
    try {
      const params = merge(queryParams(c.req.url), await formParams(c, runtime));
      return redirect(await endSessionRequest(svc, { params, base: await issuer(c) }));
    } catch (e) {
      if (e instanceof OAuthError) return oauthError(e);
      throw e;
    }
  });
  app.all('/logged-out', (c) => (named(c, 'loggedOut'), plain('signed out successfully')));

  return app;
}

function executionCtx(c: Context): unknown {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}
