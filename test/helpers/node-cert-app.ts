import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type Client } from '@libsql/client';
import { createApp } from '../../src/app.js';
import { bootstrapStore } from '../../src/bootstrap.js';
import { parseConfig } from '../../src/config.js';
import type { ClientCertificate, Deps, Runtime } from '../../src/deps.js';
import { openNodeStore } from '../../src/node.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, TestClient } from './client.js';

export interface NodeCertApp {
  client: TestClient;
  /** A client whose every request presents this TLS client certificate chain (DER, leaf first). */
  withCertificate(cert: ClientCertificate): TestClient;
  deps: Deps;
  /** Log lines written during the test (to prove no request failed unexpectedly and no secret is logged). */
  logs: string[];
  libsql: Client;
  close(): void;
}

/**
 * The real app on a temporary libSQL file, with a runtime that hands each request the client
 * certificate its client was made with, as the Node HTTPS server does for a TLS peer certificate.
 */
export async function createNodeCertApp(env: Record<string, string> = {}): Promise<NodeCertApp> {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-cert-'));
  const libsql = createClient({ url: `file:${join(dir, 'test.db')}` });
  const db = await openNodeStore(libsql);
  const config = parseConfig({ CONTROLLER_SECRET: 'test-controller-secret-0123456789', ZITI_API_ADDRESS: 'localhost:1280', ...env }, 'node-test');
  const logs: string[] = [];
  const record = (m: string, f?: Record<string, unknown>) => void logs.push(JSON.stringify({ m, ...f }));
  const quiet = { info: record, warn: record, error: record };
  const { pki } = await bootstrapStore(db, config, { username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
  const deps: Deps = { db, config, pki, log: quiet, now: () => Date.now() };
  const certs = new WeakMap<Request, ClientCertificate>();
  const pending: Promise<unknown>[] = [];
  const runtime: Runtime = {
    deps: async () => deps,
    clientCertificate: (request) => certs.get(request),
    waitUntil: (p) => void pending.push(p),
    // As the Node entry (src/node.ts) adds headers.
    remakeForHeaders: true,
  };
  const app = createApp(runtime);
  const fetcher = (cert?: ClientCertificate) => async (req: Request) => {
    if (cert) certs.set(req, cert);
    const res = await app.fetch(req, {});
    await Promise.all(pending.splice(0));
    return res;
  };
  return {
    client: new TestClient(fetcher()),
    withCertificate: (cert) => new TestClient(fetcher(cert)),
    deps,
    logs,
    libsql,
    close: () => {
      libsql.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
