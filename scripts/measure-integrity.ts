/**
 * Measures the data-integrity check and fix (docs/operations.md, "Data integrity") at one of the bench's
 * model sizes on Node: the bench's seeding (bench/seed.ts) into the real Node controller over HTTPS, cached
 * service totals warmed for some identities, then through the API: a check of the clean store, some
 * derived rows corrupted in the store, a fix, and a check again. Each run is timed from the POST to the
 * results saying it ended. Then each checker alone, on its own connection, for the breakdown.
 * Usage: npx tsx scripts/measure-integrity.ts [--size small|medium|many-services]
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { hashPassword } from '../src/auth/password.js';
import { openNativeStore } from '../src/db/native.js';
import { CHECKERS } from '../src/operations/checkers-repo.js';
import { Client } from '../bench/http.js';
import { createRunDir } from '../bench/leftovers.js';
import { SIZES, type SizeName } from '../bench/model.js';
import { startNodeRuntime } from '../bench/runtimes/node.js';
import { MGMT, Sessions } from '../bench/scenarios.js';
import { seedModel } from '../bench/seed.js';

const { values } = parseArgs({ options: { size: { type: 'string', default: 'many-services' } } });
const size = values.size as SizeName;
if (!SIZES[size]) throw new Error(`unknown size ${size}`);

const runDir = createRunDir();
const rt = await startNodeRuntime(runDir);
try {
  const password = randomBytes(18).toString('base64url');
  const client = new Client(rt.target, 4);
  const sessions = new Sessions(client, rt.store, password);
  let t0 = performance.now();
  const model = await seedModel(rt.store, SIZES[size], await hashPassword(password), async (admin) => ({ client, token: await sessions.token(admin, MGMT) }));
  console.log(`seeded ${size} in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${model.entities.map((e) => `${e.count} ${e.entity} (${e.via})`).join(', ')}`);
  const token = await sessions.token(model.admin, MGMT);
  const call = async (method: 'GET' | 'POST', path: string) => {
    const reply = await client.json({ method, path: MGMT + path, headers: { 'zt-session': token } });
    if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`);
    return reply.body;
  };

  // Cached totals for 200 identities, the worst among them: the recount of each is part of a check.
  for (const id of [model.worst.identityId, model.typical.identityId, ...model.identityIds.slice(0, 198)]) await call('GET', `/identities/${id}/services?limit=1`);

  async function timed(op: 'check' | 'fix'): Promise<{ ms: number; results: number; tooMany: boolean }> {
    const start = performance.now();
    await call('POST', `/database/${op}-data-integrity`);
    for (;;) {
      const { data } = await call('GET', '/database/data-integrity-results');
      if (!data.inProgress) {
        if (data.error) throw new Error(`${op}: ${data.error}`);
        if (process.env.SHOW) console.log(data.results.slice(0, 5));
        return { ms: performance.now() - start, results: data.results.length, tooMany: data.tooManyErrors };
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  const rows = async (sql: string) => rt.store.all(sql);
  const links = Number((await rows('SELECT count(*) AS n FROM policy_links'))[0].n);
  const counts = Number((await rows('SELECT count(*) AS n FROM access_counts'))[0].n);
  console.log(`store: ${links} policy links, ${counts} cached totals`);

  const clean = await timed('check');
  // What a request waits meanwhile: a version request every 20 ms during a check.
  const waits: number[] = [];
  let running = true;
  const probing = (async () => {
    while (running) {
      const s = performance.now();
      await client.send({ method: 'GET', path: '/edge/client/v1/version' });
      waits.push(performance.now() - s);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const probed = await timed('check');
  running = false;
  await probing;
  waits.sort((a, b) => a - b);
  console.log(`requests during a check: ${waits.length}, p50 ${waits[Math.floor(waits.length / 2)].toFixed(1)} ms, p99 ${waits[Math.floor(waits.length * 0.99)].toFixed(1)} ms, max ${waits[waits.length - 1].toFixed(1)} ms (check took ${(probed.ms / 1000).toFixed(2)} s)`);
  // Corruption: 10 links deleted, 10 stale links added, 10 orphaned authenticators.
  const victims = await rows("SELECT policy_id, role, entity_id, policy_type FROM policy_links WHERE role = 'identity' ORDER BY entity_id LIMIT 10");
  const now = Date.now();
  await rt.store.batch([
    ...victims.map((v) => ({ sql: 'DELETE FROM policy_links WHERE policy_id = ? AND role = ? AND entity_id = ?', args: [String(v.policy_id), String(v.role), String(v.entity_id)] })),
    ...Array.from({ length: 10 }, (_, i) => ({ sql: "INSERT OR IGNORE INTO policy_links (policy_id, role, entity_id, policy_type) SELECT id, 'service', ?, 'dial' FROM service_policies WHERE type = 'Dial' LIMIT 1", args: [`stale-${i}`] })),
    ...Array.from({ length: 10 }, (_, i) => ({ sql: "INSERT INTO authenticators (id, created_at, updated_at, identity_id, method) VALUES (?, ?, ?, 'gone', 'cert')", args: [`orphan-${i}`, now, now] })),
  ]);
  const corrupt = await timed('check');
  const fix = await timed('fix');
  const after = await timed('check');
  console.log('\n| run | wall time | results |');
  console.log('| --- | --- | --- |');
  for (const [name, r] of [['check, clean store', clean], ['check, 30 rows corrupted', corrupt], ['fix', fix], ['check after the fix', after]] as const) {
    console.log(`| ${name} | ${(r.ms / 1000).toFixed(2)} s | ${r.results}${r.tooMany ? ' (more)' : ''} |`);
  }

  // Each checker alone, on its own connection to the same file (the controller is idle).
  const own = openNativeStore(join(runDir, 'node', 'controller.db'));
  console.log('\n| checker | slices | time | longest slice |');
  console.log('| --- | --- | --- | --- |');
  for (const checker of CHECKERS) {
    t0 = performance.now();
    let cursor: string | null = null;
    let slices = 0;
    let longest = 0;
    do {
      const s = performance.now();
      const slice = await checker.slice(own.db, cursor, 1000);
      longest = Math.max(longest, performance.now() - s);
      cursor = slice.next;
      slices++;
    } while (cursor !== null);
    const ms = performance.now() - t0;
    if (ms >= 5) console.log(`| ${checker.name} | ${slices} | ${ms.toFixed(0)} ms | ${longest.toFixed(0)} ms |`);
  }
  own.close();
  client.close();
} finally {
  await rt.close();
  rmSync(runDir, { recursive: true, force: true });
}
