/**
 * What a controller's own work per request costs under load on Node, measured against the read floor: the
 * floor's read route made to spend N µs of CPU before it answers (`?work=N`, a busy wait), for several N,
 * in the same alternation as the plain floor (N = 0) and with the bench's load generator (16 connections,
 * its own process). The answer says how much work a Node row can do beyond the floor's before its ratio
 * moves, and what each further µs costs: on a machine where the load generator, not the server, limits
 * the floor, the first µs cost nothing at all (docs/benchmarks.md, "The Node floor is the load generator's").
 *
 *   npm run bench:work-floor -- [µs, comma-separated; default 0,5,10,15,20,30,40] [measured s per step; default 4]
 *
 * The store is a new one in a temporary directory (the bootstrap admin is the identity read); the floor's
 * read costs the same on a seeded store (one indexed read by primary key).
 */
import { rmSync } from 'node:fs';
import { createRunDir } from './leftovers.js';
import { LoadGenerator, type LoadPhase } from './load.js';
import { startNodeRuntime } from './runtimes/node.js';

const steps = (process.argv[2] ?? '0,5,10,15,20,30,40').split(',').map(Number);
if (steps.some((n) => !Number.isFinite(n) || n < 0 || n > 10_000) || steps[0] !== 0) throw new Error('steps are µs from 0 to 10000, the first 0 (the plain floor)');
const durationMs = Number(process.argv[3] ?? 4) * 1000;

const runDir = createRunDir();
const rt = await startNodeRuntime(runDir);
const generator = new LoadGenerator();
try {
  const ids = (await rt.store.all('SELECT id FROM identities LIMIT 100')).map((r) => r.id as string);
  const phases: LoadPhase[] = steps.map((micros) => ({
    target: rt.floorTarget,
    requests: ids.map((id) => ({ method: 'GET', path: `/__floor/read/${id}${micros > 0 ? `?work=${micros}` : ''}` })),
  }));
  const results = await generator.run({ phases, concurrency: 16, warmupMs: 1000, durationMs, rounds: 2, maxRequests: 10_000_000 });
  const floor = results[0];
  console.log('| work per request | req/s | p50 ms | × floor (p50) | µs per answer (1 / req/s) | errors |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const [i, r] of results.entries()) {
    console.log(`| ${steps[i]} µs | ${r.throughput.toFixed(0)} | ${r.latencyMs.p50.toFixed(3)} | ${(r.latencyMs.p50 / floor.latencyMs.p50).toFixed(2)} | ${(1e6 / r.throughput).toFixed(1)} | ${r.errors} |`);
  }
} finally {
  generator.kill();
  await rt.close();
  rmSync(runDir, { recursive: true, force: true });
}
