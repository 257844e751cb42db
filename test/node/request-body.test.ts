/**
 * Request bodies on the Node server, read from the raw request (src/node.ts `readIncoming`), bounded:
 * tested over the real HTTPS server. `GET /current-identity/mfa/recovery-codes` takes its code from a JSON
 * body (Go clients send one) before the `mfa-validation-code` header, which a fetch `Request` could not
 * carry; a POST body in several writes, a body past the cap without a declared length, and a keep-alive
 * connection that carries bodies one after the other.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret, TOTP, URI } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type NodeController } from '../../src/node.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const PASSWORD = 'admin-password-for-get-body';

interface Reply {
  status: number;
  body: { data?: Record<string, unknown>; error?: { code: string } };
  /** The answer's `connection` header. */
  connection?: string;
  /** The request went out on a kept-alive connection that had carried an earlier one. */
  reusedSocket: boolean;
}

interface CallOptions {
  /** The body, or its pieces, written one after the other with a pause between them. */
  body?: string | string[];
  headers?: Record<string, string>;
  chunked?: boolean;
  agent?: Agent;
}

describe('request bodies on the Node server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-get-body-'));
  let controller: NodeController;
  let token = '';
  let totp: TOTP;
  /**
   * A TOTP code is accepted only for a step later than the last accepted one (ADR 0007), within ±2 steps of
   * now: each accepted code is the next step's, from two steps back. A refused code uses none up.
   */
  let step = -2;
  const code = () => totp.generate({ timestamp: Date.now() + 30_000 * step });
  const nextCode = () => (step++, totp.generate({ timestamp: Date.now() + 30_000 * (step - 1) }));

  const call = (method: string, path: string, options: CallOptions = {}): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { 'zt-session': token, ...options.headers };
      const pieces = options.body === undefined ? undefined : Array.isArray(options.body) ? options.body : [options.body];
      if (pieces) {
        headers['content-type'] = 'application/json';
        // Node frames a GET body only as it is told to.
        if (options.chunked) headers['transfer-encoding'] = 'chunked';
        else headers['content-length'] = String(pieces.reduce((n, p) => n + Buffer.byteLength(p), 0));
      }
      const req = request({ host: '127.0.0.1', port: controller.port, path: `/edge/client/v1${path}`, method, headers, rejectUnauthorized: false, agent: options.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {}, connection: res.headers.connection, reusedSocket: req.reusedSocket });
        });
      });
      req.on('error', reject);
      void (async () => {
        for (const [i, piece] of (pieces ?? []).entries()) {
          if (i > 0) await new Promise((r) => setTimeout(r, 20));
          req.write(piece);
        }
        req.end();
      })();
    });

  beforeAll(async () => {
    controller = await startController({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', ADMIN_PASSWORD: PASSWORD }, { logger: quiet });
    token = '';
    const login = await call('POST', '/authenticate?method=password', { body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
    token = login.body.data!.token as string;
    expect((await call('POST', '/current-identity/mfa')).status).toBe(201);
    const url = (await call('GET', '/current-identity/mfa')).body.data!.provisioningUrl as string;
    totp = new TOTP({ secret: Secret.fromBase32((URI.parse(url) as TOTP).secret.base32), algorithm: 'SHA1', digits: 6, period: 30 });
    expect((await call('POST', '/current-identity/mfa/verify', { body: JSON.stringify({ code: nextCode() }) })).status).toBe(200);
  });
  afterAll(async () => {
    await controller?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the code from the body of GET /current-identity/mfa/recovery-codes, with a length or chunked', async () => {
    const byLength = await call('GET', '/current-identity/mfa/recovery-codes', { body: JSON.stringify({ code: nextCode() }) });
    expect(byLength.status).toBe(200);
    expect(byLength.body.data!.recoveryCodes).toHaveLength(20);
    const chunked = await call('GET', '/current-identity/mfa/recovery-codes', { body: JSON.stringify({ code: nextCode() }), chunked: true });
    expect([chunked.status, chunked.body.error]).toEqual([200, undefined]);
    expect(chunked.body.data!.recoveryCodes).toEqual(byLength.body.data!.recoveryCodes);
  });

  it('prefers a code in the body, even an empty one, to the header; without a body the header is read', async () => {
    const wrong = await call('GET', '/current-identity/mfa/recovery-codes', { body: JSON.stringify({ code: '000000' }), headers: { 'mfa-validation-code': code() } });
    expect([wrong.status, wrong.body.error?.code]).toEqual([400, 'MFA_INVALID_TOKEN']);
    const empty = await call('GET', '/current-identity/mfa/recovery-codes', { body: JSON.stringify({ code: '' }), headers: { 'mfa-validation-code': code() } });
    expect([empty.status, empty.body.error?.code]).toEqual([400, 'MFA_INVALID_TOKEN']);
    const header = await call('GET', '/current-identity/mfa/recovery-codes', { headers: { 'mfa-validation-code': nextCode() } });
    expect(header.status).toBe(200);
  });

  it('refuses a GET body that is not JSON or is too large, as any other body', async () => {
    const bad = await call('GET', '/current-identity/mfa/recovery-codes', { body: '{"code":' });
    expect([bad.status, bad.body.error?.code]).toEqual([400, 'COULD_NOT_PARSE_BODY']);
    const big = await call('GET', '/current-identity/mfa/recovery-codes', { body: JSON.stringify({ code: 'x'.repeat(2 * 1024 * 1024) }) });
    expect([big.status, big.body.error?.code]).toEqual([413, 'REQUEST_TOO_LARGE']);
    // Refused for its declared length, unread: the connection is not kept for a next request behind it.
    expect(big.connection).toBe('close');
  });

  it('reads a POST body sent in several writes, with a length or chunked', async () => {
    const body = JSON.stringify({ username: 'admin', password: PASSWORD });
    const pieces = [body.slice(0, 5), body.slice(5, 20), body.slice(20)];
    for (const chunked of [false, true]) {
      const login = await call('POST', '/authenticate?method=password', { body: pieces, chunked });
      expect([login.status, login.body.error]).toEqual([200, undefined]);
      expect(login.body.data!.token).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('answers a chunked body that passes the cap with 413 before reading it all, and closes that connection', async () => {
    const piece = `"${'x'.repeat(256 * 1024)}",`;
    const big = await call('POST', '/authenticate?method=password', { body: ['{"username":[', ...Array<string>(8).fill(piece), '""]}'], chunked: true });
    expect([big.status, big.body.error?.code]).toEqual([413, 'REQUEST_TOO_LARGE']);
    expect(big.connection).toBe('close');
    // The cap decided, not the body: the same login with a small body still works.
    const login = await call('POST', '/authenticate?method=password', { body: JSON.stringify({ username: 'admin', password: PASSWORD }), chunked: true });
    expect(login.status).toBe(200);
  });

  it('keeps a connection for the next request after a body read whole', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const body = JSON.stringify({ username: 'admin', password: PASSWORD });
      const first = await call('POST', '/authenticate?method=password', { body, agent });
      const second = await call('POST', '/authenticate?method=password', { body: [body.slice(0, 10), body.slice(10)], chunked: true, agent });
      const third = await call('GET', '/current-api-session', { agent, headers: { 'zt-session': second.body.data!.token as string } });
      expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
      expect([first.reusedSocket, second.reusedSocket, third.reusedSocket]).toEqual([false, true, true]);
    } finally {
      agent.destroy();
    }
  });
});
