import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type NodeController } from '../../src/node.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, CLIENT } from '../helpers/client.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

interface HttpsReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function https(port: number, path: string, options: { headers?: Record<string, string>; body?: unknown; localAddress?: string; method?: string } = {}): Promise<HttpsReply> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? (body ? 'POST' : 'GET'),
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...options.headers },
        localAddress: options.localAddress,
        rejectUnauthorized: false,
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function startOn(extra: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-transport-'));
  const controller = await startController({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', ADMIN_USERNAME, ADMIN_PASSWORD, CONTROLLER_SECRET: 'transport-test-secret-0123456789', ...extra }, { logger: quiet });
  return { controller, close: async () => (await controller.close(), rmSync(dir, { recursive: true, force: true })) };
}

const login = (port: number, password: string, headers: Record<string, string> = {}, localAddress?: string) =>
  https(port, `${CLIENT}/authenticate?method=password`, { body: { username: ADMIN_USERNAME, password }, headers, localAddress });

describe('forwarding headers on the Node server', () => {
  let server: Awaited<ReturnType<typeof startOn>>;
  let port: number;
  beforeAll(async () => {
    server = await startOn();
    port = server.controller.port;
  });
  afterAll(() => server?.close());

  it('records the socket peer, not X-Forwarded-For, X-Real-IP or CF-Connecting-IP from an untrusted peer', async () => {
    const reply = await login(port, ADMIN_PASSWORD, { 'x-forwarded-for': '203.0.113.9', 'x-real-ip': '203.0.113.10', 'cf-connecting-ip': '203.0.113.11' });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text).data.ipAddress).toBe('127.0.0.1');
  });

  it('a forged X-Forwarded-For neither throttles the address it names nor lets its sender rotate past the throttle', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push((await login(port, `wrong-${i}`, { 'x-forwarded-for': `198.51.100.${i}` }, '127.0.0.2')).status);
    // Ten failures per (address, username) in five minutes, whatever the header says.
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
    // The address the attacker named is not throttled.
    expect((await login(port, ADMIN_PASSWORD, {}, '127.0.0.1')).status).toBe(200);
  });
});

describe('forwarding headers behind a trusted proxy', () => {
  let server: Awaited<ReturnType<typeof startOn>>;
  beforeAll(async () => {
    server = await startOn({ ZITI_TRUSTED_PROXIES: '127.0.0.0/8' });
  });
  afterAll(() => server?.close());

  it('takes the right-most untrusted X-Forwarded-For hop', async () => {
    const reply = await login(server.controller.port, ADMIN_PASSWORD, { 'x-forwarded-for': '192.0.2.1, 203.0.113.5, 127.0.0.9' });
    expect(JSON.parse(reply.text).data.ipAddress).toBe('203.0.113.5');
  });
});

describe('CORS', () => {
  let server: Awaited<ReturnType<typeof startOn>>;
  let port: number;
  beforeAll(async () => {
    server = await startOn({ ZITI_CORS_ORIGINS: 'https://console.example.com' });
    port = server.controller.port;
  });
  afterAll(() => server?.close());

  const cors = async (origin: string, method = 'GET') => {
    const r = await https(port, `${CLIENT}/version`, { headers: { origin, ...(method === 'OPTIONS' ? { 'access-control-request-method': 'POST' } : {}) }, method });
    return { status: r.status, origin: r.headers['access-control-allow-origin'], credentials: r.headers['access-control-allow-credentials'], vary: r.headers.vary };
  };

  it('echoes with credentials only the configured, loopback and own origins', async () => {
    for (const origin of ['https://console.example.com', `https://127.0.0.1:${port}`, 'http://localhost:5173', 'https://localhost:1280']) {
      for (const method of ['GET', 'OPTIONS']) {
        const r = await cors(origin, method);
        expect(r.origin, `${method} ${origin}`).toBe(origin);
        expect(r.credentials).toBe('true');
      }
    }
  });

  it('never allows other origins or Origin: null', async () => {
    for (const origin of ['https://evil.example', 'null', 'https://console.example.com.evil.example', 'http://localhost.evil.example']) {
      for (const method of ['GET', 'OPTIONS']) {
        const r = await cors(origin, method);
        expect(r.origin, `${method} ${origin}`).toBeUndefined();
        expect(r.credentials).toBeUndefined();
        expect(String(r.vary)).toMatch(/origin/i);
      }
    }
  });
});
