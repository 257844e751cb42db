import { Hono } from 'hono';
import type { Runtime } from './deps.js';
import { ApiError, bounded } from './errors.js';
import { errorResponse, replaceResponse, withHeaders } from './http/envelope.js';
import { registerApi } from './http/register.js';
import { CLIENT_BASE, MANAGEMENT_BASE, canonicalPath, pathOf } from './http/paths.js';
import { shortId } from './lib/ids.js';
import { clientApi, managementApi } from './apis.js';
import { CONTROLLER_VERSION, type Config } from './config.js';
import { observe } from './observability/middleware.js';
import { oidcRoutes } from './oidc/routes.js';
import { specDocument } from './resources/discovery/handlers.js';

const CORS_HEADERS = {
  'access-control-allow-credentials': 'true',
  'access-control-allow-headers': 'content-type, accept, authorization, zt-session',
  'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE',
};

const SERVER = `ziti-controller/${CONTROLLER_VERSION}`;

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?$/i;

/**
 * Whether a browser origin may call with credentials (the controller echoes any origin; docs/auth.md):
 * the controller's own origin (its Admin Console), loopback origins, and those the operator lists in
 * `ZITI_CORS_ORIGINS` (`*`: any). `null` (sandboxed frames, files, redirects) never is: a browser sends
 * installed client certificates along, so credentials must only go to origins somebody chose.
 */
export function corsAllowed(origin: string, requestUrl: string, config: Pick<Config, 'apiAddress' | 'corsOrigins'>): boolean {
  const o = origin.trim().toLowerCase();
  if (o === 'null' || !/^https?:\/\/[^/\s]+$/.test(o)) return false;
  if (LOOPBACK_ORIGIN.test(o)) return true;
  if (o === new URL(requestUrl).origin.toLowerCase() || o === `https://${config.apiAddress}`.toLowerCase()) return true;
  return config.corsOrigins.includes('*') || config.corsOrigins.includes(o);
}

/**
 * A per-process (per-isolate) instance id, as the controller sends in `ziti-instance-id`. Made on the
 * first request: Workers forbid random values in global scope.
 */
let instanceId: string | undefined;
function getInstanceId(): string {
  return (instanceId ??= 'c' + shortId().toLowerCase() + shortId().toLowerCase());
}

/**
 * Builds the application: both APIs from the generated operation tables, one error envelope, CORS
 * as the controller does it, and the controller's path aliasing. The runtime supplies dependencies.
 */
export function createApp(runtime: Runtime): Hono {
  const app = new Hono({ getPath: (req: Request) => canonicalPath(pathOf(req.url)) });

  app.use(async (c, next) => {
    const requestId = shortId();
    c.set('requestId' as never, requestId as never);
    const origin = c.req.header('origin');
    const allowed = origin !== undefined && corsAllowed(origin, c.req.url, (await runtime.deps(c.env)).config);
    if (c.req.method === 'OPTIONS' && origin) {
      // A preflight from an origin that is not allowed gets no CORS headers: the browser stops there.
      return new Response(null, { status: 200, headers: allowed ? { ...CORS_HEADERS, 'access-control-allow-origin': origin, vary: 'Origin' } : { vary: 'Origin' } });
    }
    await next();
    const added: Record<string, string> = { 'x-request-id': requestId, 'ziti-instance-id': getInstanceId(), server: SERVER };
    if (origin) added.vary = 'Origin';
    if (allowed) {
      added['access-control-allow-origin'] = origin;
      added['access-control-allow-credentials'] = 'true';
    }
    replaceResponse(c, withHeaders(c.res, added, runtime.remakeForHeaders === true));
  });

  // Health checks, /metrics, the request log line and counters (src/observability).
  app.use(observe(runtime));

  // The OIDC provider, when enabled (ZITI_OIDC); otherwise /oidc paths are unknown paths.
  app.use('/oidc/*', async (c, next) => ((await runtime.deps(c.env)).config.oidc.enabled ? next() : c.notFound()));
  app.route('/oidc', oidcRoutes(runtime));

  registerApi(app, clientApi, runtime);
  registerApi(app, managementApi, runtime);

  // The API descriptions where the controller also serves them (§10.3): the JSON document of
  // `GET /specs/{id}/spec`, anonymous; logged and counted as operation `swagger.json`.
  for (const [base, id] of [[CLIENT_BASE, 'edge-client'], [MANAGEMENT_BASE, 'edge-management']] as const) {
    app.get(`${base}/swagger.json`, (c) => {
      c.set('operationId' as never, 'swagger.json' as never);
      return specDocument(id, 'json');
    });
    app.all(`${base}/swagger.json`, () => {
      throw new ApiError('METHOD_NOT_ALLOWED');
    });
  }

  app.notFound((c) => {
    const requestId = (c.get('requestId' as never) as string | undefined) ?? shortId();
    const path = canonicalPath(pathOf(c.req.url));
    return errorResponse(new ApiError('NOT_FOUND', { code: 'UNHANDLED', message: `path ${bounded(path)} was not found` }), requestId);
  });

  app.onError(async (err, c) => {
    const requestId = (c.get('requestId' as never) as string | undefined) ?? shortId();
    if (err instanceof ApiError) return errorResponse(err, requestId);
    // Unexpected: log with the request id, answer without internals.
    try {
      const deps = await runtime.deps(c.env);
      deps.log.error('unhandled error', { requestId, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    } catch {
      console.error(JSON.stringify({ level: 'error', message: 'unhandled error', requestId, error: String(err) }));
    }
    return errorResponse(new ApiError('UNHANDLED'), requestId);
  });

  return app;
}
