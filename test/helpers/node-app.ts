import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type Client } from '@libsql/client';
import { createApp } from '../../src/app.js';
import { bootstrapStore } from '../../src/bootstrap.js';
import { parseConfig } from '../../src/config.js';
import type { Deps, Logger, Runtime } from '../../src/deps.js';
import { openStore, snapshotFile } from '../../src/db/node-store.js';
import { MIGRATIONS_DIR, openNodeStore } from '../../src/node.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, TestClient } from './client.js';

export interface NodeTestApp {
  client: TestClient;
  deps: Deps;
  /** Moves the app's clock forward. */
  advance(ms: number): void;
  /** Log lines written during the test (to prove no secret is logged). */
  logs: string[];
  /** The libSQL client, when the app runs on `@libsql/client` (`store: 'libsql'`). */
  libsql?: Client;
  close(): void;
}

const TEST_SECRET = 'test-controller-secret-0123456789';

/**
 * The real app against a real database in a temporary file, with migrations applied and the store
 * bootstrapped (PKI, default admin). `env` overrides configuration variables. `store: 'native'` is the
 * embedded store `npm start` runs on (src/db/native.ts); `libsql` (the default) is `@libsql/client`,
 * the driver of remote libSQL.
 */
export async function createNodeTestApp(env: Record<string, string> = {}, options: { dbFile?: string; store?: 'native' | 'libsql' } = {}): Promise<NodeTestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-test-'));
  const file = options.dbFile ?? join(dir, 'test.db');
  const native = options.store === 'native' ? await openStore({ url: `file:${file}`, dataDir: dir, migrationsFolder: MIGRATIONS_DIR }) : undefined;
  const libsql = native ? undefined : createClient({ url: `file:${file}` });
  const db = native ? native.db : await openNodeStore(libsql!);
  const config = parseConfig({ CONTROLLER_SECRET: TEST_SECRET, ZITI_API_ADDRESS: 'localhost:1280', ...env }, 'node-test');
  const logs: string[] = [];
  const log: Logger = {
    info: (m, f) => void logs.push(JSON.stringify({ m, ...f })),
    warn: (m, f) => void logs.push(JSON.stringify({ m, ...f })),
    error: (m, f) => void logs.push(JSON.stringify({ m, ...f })),
  };
  const { pki } = await bootstrapStore(db, config, { username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
  let offset = 0;
  const deps: Deps = { db, config, pki, log, now: () => Date.now() + offset, operations: { snapshot: async (now) => ({ kind: 'file', path: await snapshotFile(file, now) }) } };
  const pending: Promise<unknown>[] = [];
  const runtime: Runtime = {
    deps: async () => deps,
    clientCertificate: () => undefined,
    waitUntil: (p) => void pending.push(p),
    // As the Node entry (src/node.ts) adds headers.
    remakeForHeaders: true,
  };
  const app = createApp(runtime);
  const client = new TestClient(async (req) => {
    const res = await app.fetch(req, {});
    await Promise.all(pending.splice(0));
    return res;
  });
  return {
    client,
    deps,
    advance: (ms) => void (offset += ms),
    logs,
    libsql,
    close: () => {
      libsql?.close();
      native?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Records every reply (headers and body) a client receives, to prove no secret ever leaves the app. */
export function recordReplies(client: TestClient, seen: string[]): void {
  const request = client.request.bind(client);
  client.request = async (path, options) => {
    const reply = await request(path, options);
    seen.push(JSON.stringify([...reply.headers]) + reply.text);
    return reply;
  };
}
