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

interface RawReply {
  status: number | undefined;
  contentType: string | undefined;
  body: any;
  ms: number;
}

/** One request written as raw bytes over TLS (malformed on purpose), read until the server closes. */
function raw(port: number, text: string, drip?: { everyMs: number }): Promise<RawReply> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
    let data = '';
    let timer: NodeJS.Timeout | undefined;
    const limit = setTimeout(() => socket.destroy(), 25_000);
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(limit);
      const [head, ...rest] = data.split('\r\n\r\n');
      let body: any;
      try {
        body = JSON.parse(rest.join('\r\n\r\n'));
      } catch {
        body = rest.join('\r\n\r\n');
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]) || undefined, contentType: /content-type: ([^\r\n]+)/i.exec(head)?.[1], body, ms: Date.now() - started });
    });
    socket.on('secureConnect', () => {
      socket.write(text);
      if (drip) {
        let n = 0;
        timer = setInterval(() => socket.write(`x-drip-${n++}: y\r\n`), drip.everyMs);
      }
    });
  });
}

function expectEnvelope(reply: RawReply, status: number, code: string): void {
  expect(reply.status).toBe(status);
  expect(reply.contentType).toBe('application/json');
  expect(reply.body.error.code).toBe(code);
  expect(reply.body.error.requestId).toMatch(/^\w+$/);
  expect(reply.body.meta).toEqual({ apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' });
}

describe('transport errors on the Node server', () => {
  let server: Awaited<ReturnType<typeof startOn>>;
  let port: number;
  beforeAll(async () => {
    server = await startOn();
    port = server.controller.port;
  });
  afterAll(() => server?.close());

  it('sets its timeouts deliberately', () => {
    const s = server.controller.server as unknown as Record<string, number>;
    expect(s.headersTimeout).toBe(10_000);
    expect(s.requestTimeout).toBe(30_000);
    expect(s.keepAliveTimeout).toBe(5_000);
  });

  it('answers oversized request lines and headers with 431 in the error envelope', async () => {
    const big = 'a'.repeat(100 * 1024);
    expectEnvelope(await raw(port, `GET /edge/client/v1/version HTTP/1.1\r\nHost: x\r\nx-big: ${big}\r\n\r\n`), 431, 'HEADERS_TOO_LARGE');
    expectEnvelope(await raw(port, `GET /edge/client/v1/version?q=${big} HTTP/1.1\r\nHost: x\r\n\r\n`), 431, 'HEADERS_TOO_LARGE');
    const many = Array.from({ length: 3000 }, (_, i) => `x-h${i}: v\r\n`).join('');
    expectEnvelope(await raw(port, `GET /edge/client/v1/version HTTP/1.1\r\nHost: x\r\n${many}\r\n`), 431, 'HEADERS_TOO_LARGE');
  });

  it('answers malformed requests with 400 in the error envelope', async () => {
    expectEnvelope(await raw(port, `GET /edge/client/v1/version HTTP/1.1\r\nHost: x\r\nx-nul: a\u0000b\r\n\r\n`), 400, 'MALFORMED_REQUEST');
    expectEnvelope(await raw(port, 'GARBAGE\r\n\r\n'), 400, 'MALFORMED_REQUEST');
    // Parsed as HTTP, but not a URL the app can be given.
    expectEnvelope(await raw(port, 'GET /edge/client/v1/version HTTP/1.1\r\nHost: [bad\r\nConnection: close\r\n\r\n'), 400, 'MALFORMED_REQUEST');
    expectEnvelope(await raw(port, 'GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 400, 'MALFORMED_REQUEST');
    expectEnvelope(await raw(port, 'POST /edge/client/v1/authenticate HTTP/1.1\r\nHost: x\r\ncontent-length: 5\r\ncontent-length: 6\r\n\r\nhello!'), 400, 'MALFORMED_REQUEST');
  });

  it('closes a connection dripping its headers within seconds, with 408 in the error envelope', async () => {
    const reply = await raw(port, 'GET /edge/client/v1/version HTTP/1.1\r\nHost: x\r\n', { everyMs: 500 });
    expectEnvelope(reply, 408, 'REQUEST_TIMEOUT');
    expect(reply.ms).toBeLessThan(13_000);
  });

  it('still serves ordinary requests', async () => {
    const reply = await https(port, `${CLIENT}/version`);
    expect(reply.status).toBe(200);
  });
});
