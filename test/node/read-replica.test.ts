/**
 * Reads near the caller (Workers + D1 read replicas): a session token the primary just issued is found
 * even when the replica answering reads does not have it yet, by asking the primary on a miss
 * (src/http/session.ts, `Deps.primaryDb`). The lagging replica is a real copy of the store taken
 * before the login.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { bootstrapStore } from '../../src/bootstrap.js';
import { parseConfig } from '../../src/config.js';
import { openStore, prepareDataDir, type NodeStore } from '../../src/db/node-store.js';
import type { Deps, Runtime } from '../../src/deps.js';
import { loadSession } from '../../src/http/session.js';
import { MIGRATIONS_DIR } from '../../src/node.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, TestClient } from '../helpers/client.js';

describe('a session lookup on a lagging read replica', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-replica-'));
  let primary: NodeStore;
  let replica: NodeStore;
  let deps: Deps;
  let token: string;

  beforeAll(async () => {
    prepareDataDir(join(dir, 'primary'));
    primary = await openStore({ dataDir: join(dir, 'primary'), migrationsFolder: MIGRATIONS_DIR });
    const config = parseConfig({ CONTROLLER_SECRET: 'test-controller-secret-0123456789', ZITI_API_ADDRESS: 'localhost:1280' }, 'node-test');
    const { pki } = await bootstrapStore(primary.db, config, { username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
    // The replica: everything up to now, nothing after.
    prepareDataDir(join(dir, 'replica'));
    primary.native!.native.exec(`VACUUM INTO '${join(dir, 'replica', 'controller.db')}'`);
    replica = await openStore({ dataDir: join(dir, 'replica'), migrationsFolder: MIGRATIONS_DIR });
    deps = { db: primary.db, config, pki, log: { info() {}, warn() {}, error() {} }, now: () => Date.now() };
    const runtime: Runtime = { deps: async () => deps, clientCertificate: () => undefined, waitUntil: () => {} };
    const app = createApp(runtime);
    token = await new TestClient(async (req) => app.fetch(req, {})).login();
  });

  afterAll(() => {
    primary.close();
    replica.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the new session on the primary when the replica misses it', async () => {
    const session = await loadSession({ ...deps, db: replica.db, primaryDb: primary.db }, token, () => {});
    expect(session?.identity.name).toBe('Default Admin');
    expect(session?.apiSession.token).toBe(token);
  });

  it('reads it as absent from the replica alone (what the fallback prevents)', async () => {
    expect(await loadSession({ ...deps, db: replica.db }, token, () => {})).toBeUndefined();
  });

  it('does not find an unknown token on either', async () => {
    expect(await loadSession({ ...deps, db: replica.db, primaryDb: primary.db }, crypto.randomUUID(), () => {})).toBeUndefined();
  });
});
