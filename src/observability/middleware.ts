import type { Context, MiddlewareHandler } from 'hono';
import type { Deps, Runtime } from '../deps.js';
import { pathOf } from '../http/paths.js';
import { checkHealth } from './health.js';
import { loginOutcome, PrometheusMetrics, StoreTally } from './metrics.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const LOGIN_METHODS = new Set(['password', 'cert', 'ext-jwt']);

/** The raw request path with `//` collapsed, before the API aliasing maps it into the client API. */
function rawPath(url: string): string {
  const raw = pathOf(url);
  const p = raw.includes('//') ? raw.replace(/\/{2,}/g, '/') : raw;
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

/**
 * Operations endpoints and request telemetry, mounted by createApp after the request id is set:
 * - `GET /health-checks[/...]` (both runtimes, anonymous): OpenZiti's health-check document, 200 when
 *   healthy and 503 when not (docs/adr/0003-operations-endpoints.md);
 * - `GET /metrics` (Node, only when metrics are enabled): the Prometheus exposition;
 * - for every request, one `request` log line (requestId, method, path, operationId, status,
 *   durationMs) and the request and login counters. The query string is never logged: enrollment
 *   tokens travel in it.
 */
export function observe(runtime: Runtime): MiddlewareHandler {
  return async (c, next) => {
    const t0 = performance.now();
    const path = rawPath(c.req.url);
    let operationId: string | undefined;
    let handled: Response | undefined;
    if (path === '/health-checks' || path.startsWith('/health-checks/')) {
      operationId = 'health-checks';
      handled = await healthChecks(c, runtime, path);
    } else if (path === '/metrics') {
      const deps = await runtime.deps(c.env).catch(() => undefined);
      // With ZITI_METRICS_PORT the exposition is served only there (src/node.ts), never on the API port.
      if (deps?.metrics instanceof PrometheusMetrics && deps.config.metricsPort === null) {
        operationId = 'metrics';
        handled = new Response(c.req.method === 'HEAD' ? null : deps.metrics.render(), {
          headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' },
        });
      }
    }
    if (handled) c.res = handled;
    else await next();

    const deps = await runtime.deps(c.env).catch(() => undefined);
    if (!deps) return;
    const status = c.res.status;
    const seconds = (performance.now() - t0) / 1000;
    operationId ??= (c.get('operationId' as never) as string | undefined) ?? 'unmatched';
    const method = METHODS.has(c.req.method) ? c.req.method : 'OTHER';
    const fields: Record<string, unknown> = {
      requestId: c.get('requestId' as never),
      method,
      path,
      operationId,
      status,
      durationMs: Math.round(seconds * 100_000) / 100,
    };
    const login = loginOf(c, operationId, status);
    if (login) fields.login = login;
    const metrics = deps.metrics;
    if (metrics) {
      metrics.request(operationId, method, status, seconds);
      if (login) metrics.login(login.method, login.outcome);
      // Workers: the store statements run in this isolate since the previous line.
      if (metrics instanceof StoreTally) {
        const store = metrics.take();
        if (store) fields.store = store;
      }
    }
    if (status >= 500) deps.log.warn('request', fields);
    else deps.log.info('request', fields);
  };
}

function loginOf(c: Context, operationId: string, status: number): { method: string; outcome: string } | undefined {
  if (operationId === 'authenticateMfa') return { method: 'mfa', outcome: loginOutcome(status) };
  if (operationId !== 'authenticate') return undefined;
  const m = c.req.query('method') ?? '';
  return { method: LOGIN_METHODS.has(m) ? m : 'other', outcome: loginOutcome(status) };
}

async function healthChecks(c: Context, runtime: Runtime, path: string): Promise<Response> {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    return new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } });
  }
  let deps: Promise<Deps>;
  try {
    deps = runtime.deps(c.env);
  } catch (e) {
    deps = Promise.reject(e);
  }
  const report = await checkHealth(deps, c.req.query('type') === 'short');
  if (report.failure) {
    const d = await deps.catch(() => undefined);
    const line = { requestId: c.get('requestId' as never), check: 'store.read', error: report.failure };
    if (d) d.log.warn('health check failed', line);
    else console.error(JSON.stringify({ level: 'error', message: 'health check failed', ...line }));
  }
  const output: Record<string, unknown> = { data: { checks: report.checks, healthy: report.healthy }, meta: {} };
  // A single controller is never a raft member; answered as the controller does when raft is off.
  if (path.endsWith('/controller/raft')) output.raft = { isRaftEnabled: false, isLeader: false };
  return new Response(c.req.method === 'HEAD' ? null : JSON.stringify(output), {
    status: report.healthy ? 200 : 503,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });
}
