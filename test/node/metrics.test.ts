import { mkdtempSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startController, type NodeController } from '../../src/node.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

function call(port: number, path: string, body?: unknown): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      { host: '127.0.0.1', port, path, method: data ? 'POST' : 'GET', rejectUnauthorized: false, agent: false, headers: data ? { 'content-type': 'application/json' } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** The value of one sample line, e.g. sample(text, 'ziti_logins_total{method="password",outcome="success"}'). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('Prometheus metrics on the Node entry', () => {
  const dirs: string[] = [];
  const running: NodeController[] = [];
  afterAll(async () => {
    for (const c of running) await c.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const start = async (extra: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'ziti-metrics-'));
    dirs.push(dir);
    const c = await startController({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', ADMIN_PASSWORD: 'metrics-admin-pw', ...extra }, { logger: quiet });
    running.push(c);
    return c;
  };

  it('are off by default: /metrics is an unknown path', async () => {
    const c = await start({});
    const reply = await call(c.port, '/metrics');
    expect(reply.status).toBe(404);
  });

  it('with ZITI_METRICS=true count requests and latency by operationId, logins by method and outcome, and time store statements', async () => {
    const c = await start({ ZITI_METRICS: 'true' });
    expect((await call(c.port, '/edge/client/v1/version')).status).toBe(200);
    expect((await call(c.port, '/edge/management/v1/authenticate?method=password', { username: 'admin', password: 'not-the-password' })).status).toBe(401);
    expect((await call(c.port, '/edge/management/v1/authenticate?method=password', { username: 'admin', password: 'metrics-admin-pw' })).status).toBe(200);

    const reply = await call(c.port, '/metrics');
    expect(reply.status).toBe(200);
    expect(reply.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = reply.text;
    expect(sample(text, 'ziti_http_requests_total{operation_id="listVersion",method="GET",status="200"}')).toBe(1);
    expect(sample(text, 'ziti_http_requests_total{operation_id="authenticate",method="POST",status="401"}')).toBe(1);
    expect(sample(text, 'ziti_http_request_duration_seconds_count{operation_id="authenticate"}')).toBe(2);
    expect(sample(text, 'ziti_http_request_duration_seconds_bucket{operation_id="authenticate",le="+Inf"}')).toBe(2);
    expect(sample(text, 'ziti_logins_total{method="password",outcome="failure"}')).toBe(1);
    expect(sample(text, 'ziti_logins_total{method="password",outcome="success"}')).toBe(1);
    // Start-up (migrations, bootstrap) and the logins ran statements through the timed client.
    expect(sample(text, 'ziti_store_statement_duration_seconds_count{kind="statement"}')).toBeGreaterThan(3);
    expect(sample(text, 'ziti_store_statement_duration_seconds_count{kind="batch"}')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE ziti_http_request_duration_seconds histogram');
    // No secret reaches the exposition.
    expect(text).not.toContain('metrics-admin-pw');
    expect(text).not.toContain('not-the-password');
  });

  it('with ZITI_METRICS_PORT are served only on that plain-HTTP loopback port', async () => {
    const c = await start({ ZITI_METRICS_PORT: '0' });
    expect(c.metricsPort).toBeGreaterThan(0);
    expect((await call(c.port, '/metrics')).status).toBe(404);
    const reply = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      httpGet({ host: '127.0.0.1', port: c.metricsPort, path: '/metrics', agent: false }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      }).on('error', reject);
    });
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('ziti_http_requests_total{operation_id="unmatched",method="GET",status="404"} 1');
  });

  it('refuse a malformed ZITI_METRICS or ZITI_LOG_LEVEL at start with a clear message', async () => {
    await expect(start({ ZITI_METRICS: 'maybe' })).rejects.toThrow('ZITI_METRICS must be true or false, got "maybe"');
    await expect(start({ ZITI_METRICS_PORT: 'x' })).rejects.toThrow('ZITI_METRICS_PORT must be a port number (0-65535), got "x"');
    await expect(start({ ZITI_LOG_LEVEL: 'loud' })).rejects.toThrow('ZITI_LOG_LEVEL must be one of debug, info, warn, error, silent, got "loud"');
  });
});
