/**
 * The benchmark's HTTP client: Node's own http/https with a keep-alive agent, loopback only.
 * Used by the load generator (bench/load.ts) and by the orchestrator for probes, sessions and seeding.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';

/** Where requests go: an origin on 127.0.0.1 and, for HTTPS, the CA that signed the server certificate. */
export interface Target {
  origin: string;
  /** PEM of the CA to trust (the controller's own root CA); never disables verification. */
  ca?: string;
  /** TLS server name to verify (the server certificate names localhost and 127.0.0.1). */
  servername?: string;
  /**
   * How a request's client certificate (`RequestSpec.tls`) reaches the server: presented in the TLS
   * handshake (HTTPS, the default), or, where TLS is the platform's (Workers), as the edge's verdict on
   * it in `request.cf.tlsClientAuth`, which Miniflare takes from its `MF-CF-Blob` request header.
   */
  clientCertVia?: 'handshake' | 'cf-tls-client-auth';
}

/** A client certificate to present: the PEM chain (leaf first) and its PKCS#8 private key. */
export interface ClientCert {
  cert: string;
  key: string;
}

/** A request as plain data, so it can cross to the load-generator process. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  /** JSON text. */
  body?: string;
  /** The client certificate this request presents (its connection's; see `Target.clientCertVia`). */
  tls?: ClientCert;
}

export interface Reply {
  status: number;
  body: string;
  /** Milliseconds from sending the request to the last byte of the response. */
  ms: number;
  /** The `Location` header of a redirect (the OIDC flow follows them by hand). */
  location?: string;
}

export type Agent = http.Agent | https.Agent;

export function assertLoopback(origin: string): URL {
  const url = new URL(origin);
  if (url.hostname !== '127.0.0.1') throw new Error(`the benchmark only sends traffic to 127.0.0.1, not ${url.hostname}`);
  return url;
}

export function createAgent(target: Target, maxSockets: number): Agent {
  const url = assertLoopback(target.origin);
  const options = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, keepAliveMsecs: 10_000 };
  if (url.protocol === 'https:') return new https.Agent({ ...options, ca: target.ca, servername: target.servername ?? 'localhost' });
  return new http.Agent(options);
}

const cfBlobs = new Map<string, string>();

/**
 * The `request.cf` Cloudflare's edge hands a Worker for a client certificate it verified with hostname mTLS
 * (`certPresented`, `certVerified`, the leaf's SHA-1), as Miniflare's `MF-CF-Blob` header; computed once per
 * certificate. The bench presents only certificates the controller's own enrollment issued (bench/seed.ts),
 * which an edge with the controller's root as its mTLS CA verifies; it does not verify them itself.
 */
function cfBlobOf(certPem: string): string {
  let blob = cfBlobs.get(certPem);
  if (!blob) {
    const leaf = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/.exec(certPem)?.[1];
    if (!leaf) throw new Error('client certificate: no PEM certificate');
    const fingerprint = createHash('sha1').update(Buffer.from(leaf.replace(/\s+/g, ''), 'base64')).digest('hex');
    blob = JSON.stringify({ tlsClientAuth: { certPresented: '1', certVerified: 'SUCCESS', certFingerprintSHA1: fingerprint } });
    cfBlobs.set(certPem, blob);
  }
  return blob;
}

/**
 * Sends one request and reads the whole response. Rejects on network errors and after `timeoutMs`. `ms`
 * ends at the response's last byte. `discardOk`: a 2xx body is read and dropped, not kept or decoded (the
 * load generator: decoding a 2.8 MB answer took it milliseconds of the CPU it shares with the server).
 */
export function send(agent: Agent, target: Target, spec: RequestSpec, timeoutMs = 30_000, discardOk = false): Promise<Reply> {
  const url = new URL(spec.path, target.origin);
  const secure = url.protocol === 'https:';
  const headers: Record<string, string> = { accept: 'application/json', ...spec.headers };
  // In the handshake, the certificate and key are TLS options of the request: the agent keeps a pool of
  // connections per certificate, so each keep-alive connection presents one certificate throughout.
  let tls: ClientCert | undefined;
  if (spec.tls && target.clientCertVia === 'cf-tls-client-auth') headers['mf-cf-blob'] = cfBlobOf(spec.tls.cert);
  else if (spec.tls) {
    if (!secure) throw new Error(`a client certificate needs HTTPS or cf-tls-client-auth: ${target.origin}`);
    tls = spec.tls;
  }
  let payload: Buffer | undefined;
  if (spec.body !== undefined) {
    payload = Buffer.from(spec.body);
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const options = { method: spec.method, host: '127.0.0.1', port: url.port, path: url.pathname + url.search, headers, agent, cert: tls?.cert, key: tls?.key };
    const req = (secure ? https : http).request(options as https.RequestOptions, (res) => {
      const status = res.statusCode ?? 0;
      const keep = !discardOk || status < 200 || status >= 300;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        if (keep) chunks.push(c);
      });
      res.on('end', () => {
        const ms = performance.now() - started;
        resolve({ status, body: keep ? Buffer.concat(chunks).toString('utf8') : '', ms, location: res.headers.location });
      });
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`timeout after ${timeoutMs} ms: ${spec.method} ${url.pathname}`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** A one-off client for the orchestrator (probes, logins, API seeding). */
export class Client {
  readonly agent: Agent;
  constructor(readonly target: Target, maxSockets = 16) {
    this.agent = createAgent(target, maxSockets);
  }
  send(spec: RequestSpec, timeoutMs?: number): Promise<Reply> {
    return send(this.agent, this.target, spec, timeoutMs);
  }
  async json(spec: RequestSpec): Promise<{ status: number; body: any }> {
    const reply = await this.send(spec);
    let body: unknown = reply.body;
    try {
      body = JSON.parse(reply.body);
    } catch {
      /* not JSON */
    }
    return { status: reply.status, body };
  }
  close(): void {
    this.agent.destroy();
  }
}

/** Sends the same request until it answers 2xx (start-up probes), or fails after `timeoutMs`. */
export async function waitForOk(client: Client, spec: RequestSpec, timeoutMs: number): Promise<number> {
  const started = performance.now();
  let last = 'no answer';
  while (performance.now() - started < timeoutMs) {
    try {
      const reply = await client.send(spec, 5_000);
      if (reply.status >= 200 && reply.status < 300) return performance.now() - started;
      last = `status ${reply.status}`;
    } catch (e) {
      last = e instanceof Error ? e.message : String(e);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${spec.method} ${spec.path} did not answer 2xx within ${timeoutMs} ms (${last})`);
}
