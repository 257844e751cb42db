/**
 * `npm run bench`: seeds OpenZiti's model sizes into the store, then measures every scenario on Node
 * and on workerd against a floor measured in the same run, and reports statements per request, the
 * worker bundle size and start-up times. See docs/benchmarks.md.
 *
 *   npm run bench -- [--size small|medium|many-services] [--runtime node|workerd|both]
 *                    [--duration <seconds>] [--warmup <seconds>] [--concurrency <n>] [--only <text>]
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { hashPassword, verifyPassword } from '../src/auth/password.js';
import { buildWorker, type BuiltWorker } from './bundle.js';
import { Client, type RequestSpec } from './http.js';
import { createRunDir, sweepLeftovers } from './leftovers.js';
import { LoadGenerator, type LoadPhase } from './load.js';
import { log } from './log.js';
import { SIZE_NAMES, SIZES, type SizeName } from './model.js';
import { checkTargets, floorRatio, markdown, measurement, writeResults, type BenchResults, type Measurement, type RuntimeResult, type ScenarioResult } from './report.js';
import { startNodeRuntime } from './runtimes/node.js';
import type { RuntimeName, RuntimeUnderTest } from './runtimes/types.js';
import { startWorkerdRuntime } from './runtimes/workerd.js';
import { MGMT, SCENARIOS, SDK_LOGIN_BODY, Sessions, type FloorKind, type Scenario, type ScenarioEnv } from './scenarios.js';
import { seedModel } from './seed.js';
import { formatSummary, profiled } from './profile.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS_FILE = join(ROOT, 'bench/results/latest.json');
/** Whatever happens, the run ends after this long (the largest size takes well under 10 minutes). */
const WATCHDOG_MS = 15 * 60_000;
/** Sequential requests after each load run, over which statements per request are counted. */
const STATEMENT_SAMPLES = 10;
/** About what the read floor answers unpadded (its row in the envelope); a sized floor is measured only for bigger answers. */
const FLOOR_READ_BYTES = 128;

interface Options {
  size: SizeName;
  runtimes: RuntimeName[];
  durationSec: number;
  warmupSec: number;
  rounds: number;
  concurrency: number;
  only?: string;
  /** Write a CPU profile of the controller for each scenario run (use with --only). */
  profile: boolean;
  /** Also measure, with each read-floor scenario, the read floor answering as many bytes as the scenario. */
  sizedFloor: boolean;
  /** Also measure, with each read-floor scenario that sends a `zt-session`, the session floor with that session. */
  sessionFloor: boolean;
  /** Also measure, with each cert-floor scenario, the cert floor writing the three rows a faithful login writes. */
  loginRowsFloor: boolean;
}

const USAGE = `usage: npm run bench -- [--size small|medium|many-services] [--runtime node|workerd|both]
                        [--duration <s>] [--warmup <s>] [--rounds <n>] [--concurrency <n>] [--only <text>] [--profile] [--sized-floor] [--session-floor]
                        [--login-rows-floor]
  --size         model size (default small; many-services is the big one: 10,000 services, 16,000 identities)
  --runtime      node, workerd or both (default both)
  --duration     measured seconds per scenario, and as much again for its floor (default 4)
  --warmup       unmeasured seconds before each scenario and its floor (default 1)
  --rounds       slices the scenario and its floor alternate in (default 2)
  --concurrency  concurrent keep-alive connections (default 16)
  --only         run only the scenarios whose name contains this text (texts separated by | : any of them)
  --profile      after each scenario, run its load alone under the CPU profiler (Node: the bench
                 process; workerd: the worker, through its inspector) and write
                 bench/results/<runtime>-<scenario>.cpuprofile with a summary (combine with --only)
  --sized-floor  with each scenario on the read floor, also measure that floor padded to the scenario's
                 answer size, in the same alternation: what the answer's size alone costs
  --session-floor  with each scenario on the read floor that sends a zt-session, also measure the
                 session floor (the session check's read, answered as it comes) with that session,
                 in the same alternation: what an authenticated request costs at the least
  --login-rows-floor  with each scenario on the cert floor, also measure that floor writing the three
                 rows a faithful certificate login writes (session, session certificate, SDK info) in
                 one transaction, in the same alternation: what the store's part of a login costs`;

function options(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      size: { type: 'string', default: 'small' },
      runtime: { type: 'string', default: 'both' },
      duration: { type: 'string', default: '4' },
      warmup: { type: 'string', default: '1' },
      rounds: { type: 'string', default: '2' },
      concurrency: { type: 'string', default: '16' },
      only: { type: 'string' },
      profile: { type: 'boolean', default: false },
      'sized-floor': { type: 'boolean', default: false },
      'session-floor': { type: 'boolean', default: false },
      'login-rows-floor': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const fail = (message: string): never => {
    console.error(`${message}\n${USAGE}`);
    process.exit(2);
  };
  const size = values.size as SizeName;
  if (!SIZE_NAMES.includes(size)) fail(`unknown size "${values.size}"`);
  const runtime = values.runtime!;
  if (!['node', 'workerd', 'both'].includes(runtime)) fail(`unknown runtime "${runtime}"`);
  const num = (name: string, text: string, min: number, max: number) => {
    const n = Number(text);
    if (!Number.isFinite(n) || n < min || n > max) fail(`--${name} must be a number from ${min} to ${max}`);
    return n;
  };
  return {
    size,
    runtimes: runtime === 'both' ? ['node', 'workerd'] : [runtime as RuntimeName],
    durationSec: num('duration', values.duration!, 0.5, 120),
    warmupSec: num('warmup', values.warmup!, 0, 30),
    rounds: Math.round(num('rounds', values.rounds!, 1, 20)),
    concurrency: Math.round(num('concurrency', values.concurrency!, 1, 256)),
    only: values.only,
    profile: values.profile ?? false,
    sizedFloor: values['sized-floor'] ?? false,
    sessionFloor: values['session-floor'] ?? false,
    loginRowsFloor: values['login-rows-floor'] ?? false,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

class Bench {
  private readonly cleanups: (() => Promise<void> | void)[] = [];
  private readonly runDir: string;
  private readonly load: LoadGenerator;
  private readonly password = randomBytes(18).toString('base64url');

  constructor(private readonly opts: Options) {
    sweepLeftovers();
    const runDir = createRunDir();
    this.runDir = runDir;
    this.cleanups.push(() => rmSync(runDir, { recursive: true, force: true }));
    this.load = new LoadGenerator();
    this.cleanups.push(() => this.load.close());
  }

  /** Measures the phases alternately (a scenario and its floor), one result per phase. */
  private async measure(phases: LoadPhase[], concurrency = this.opts.concurrency): Promise<Measurement[]> {
    const results = await this.load.run({
      phases,
      concurrency,
      warmupMs: this.opts.warmupSec * 1000,
      durationMs: this.opts.durationSec * 1000,
      rounds: this.opts.rounds,
      maxRequests: 2_000_000,
    });
    // Error bodies are kept for diagnosis; a validation error could echo a submitted password.
    return results.map((r) => measurement({ ...r, firstError: r.firstError?.split(this.password).join('<redacted>') }));
  }

  async run(): Promise<void> {
    const { opts } = this;
    const startedAt = new Date().toISOString();
    log(`size ${opts.size}, runtimes ${opts.runtimes.join(' + ')}, ${opts.concurrency} connections, ${opts.warmupSec} s warm-up + ${opts.durationSec} s in ${opts.rounds} rounds per scenario and per floor`);
    const passwordHash = await hashPassword(this.password);

    const tmp = join(this.runDir, 'build');
    log('building the worker with wrangler (deploy --dry-run)');
    const needWorkerd = opts.runtimes.includes('workerd');
    const failures: string[] = [];
    const built = await Promise.all([
      buildWorker(ROOT, 'wrangler.toml', join(tmp, 'controller')),
      buildWorker(ROOT, 'wrangler.toml', join(tmp, 'minified'), true),
      needWorkerd ? buildWorker(ROOT, 'bench/floor/wrangler.toml', join(tmp, 'floor')) : Promise.resolve(undefined),
    ]).catch((e: unknown) => {
      failures.push(`worker build: ${message(e)}`);
      return undefined;
    });
    const strip = ({ files, bytes, gzipBytes, minify }: BuiltWorker) => ({ files, bytes, gzipBytes, minify });

    // A runtime that fails is reported as such; the others are still measured and written.
    const runtimes: RuntimeResult[] = [];
    for (const name of opts.runtimes) {
      log(`— ${name} —`);
      try {
        if (name === 'workerd' && !built) throw new Error('no worker bundle (the build failed)');
        const rt = name === 'node' ? await startNodeRuntime(this.runDir) : await startWorkerdRuntime(ROOT, this.runDir, { controller: built![0], floor: built![2]! }, { profile: this.opts.profile });
        this.cleanups.push(() => rt.close());
        try {
          runtimes.push(await this.runRuntime(rt, passwordHash));
        } finally {
          this.cleanups.pop();
          await rt.close();
        }
      } catch (e) {
        log(`${name} failed: ${message(e)}`);
        failures.push(`${name}: ${message(e)}`);
      }
    }

    const hashMs = await this.timeHash(passwordHash);
    const partial: Omit<BenchResults, 'targets'> = {
      schema: 1,
      startedAt,
      finishedAt: new Date().toISOString(),
      size: opts.size,
      model: SIZES[opts.size],
      load: { concurrency: opts.concurrency, warmupSec: opts.warmupSec, durationSec: opts.durationSec, rounds: opts.rounds },
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model.trim() ?? 'unknown', node: process.versions.node, platform: `${process.platform}-${process.arch}` },
      hashMs,
      runtimes,
      bundle: built ? { deployed: strip(built[0]), minified: strip(built[1]) } : null,
      failures,
    };
    const results: BenchResults = { ...partial, targets: checkTargets(partial) };
    writeResults(RESULTS_FILE, results);
    console.log('\n' + markdown(results) + '\n');
    log(`results written to ${RESULTS_FILE}`);
    if (failures.length > 0) throw new Error(`the run was incomplete:\n  ${failures.join('\n  ')}`);
  }

  private async timeHash(hash: string): Promise<number> {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await verifyPassword(this.password, hash);
      times.push(performance.now() - t);
    }
    return times.sort((a, b) => a - b)[2];
  }

  private async runRuntime(rt: RuntimeUnderTest, passwordHash: string): Promise<RuntimeResult> {
    const { opts } = this;
    log(`${rt.description}: up in ${rt.startup.totalMs.toFixed(0)} ms`);
    const client = new Client(rt.target, 8);
    try {
      const sessions = new Sessions(client, rt.store, this.password);
      log(`seeding ${opts.size}`);
      const model = await seedModel(rt.store, SIZES[opts.size], passwordHash, async (admin) => ({ client, token: await sessions.token(admin, MGMT) }));

      const floors: Record<FloorKind, LoadPhase> = {
        read: { target: rt.floorTarget, requests: model.identityIds.slice(0, 100).map((id) => ({ method: 'GET', path: `/__floor/read/${id}` })) },
        hash: {
          target: rt.floorTarget,
          requests: model.loginUsers.map((u) => ({ method: 'POST', path: '/__floor/login', body: JSON.stringify({ username: u.username, password: this.password }) })),
        },
        // The same users' certificates, presented the same way as the scenario's, and the same body.
        cert: { target: rt.floorTarget, requests: (model.certUsers ?? []).map((u) => ({ method: 'POST', path: '/__floor/cert-login', body: SDK_LOGIN_BODY, tls: { cert: u.cert, key: u.key } })) },
      };
      const env: ScenarioEnv = { size: opts.size, model, password: this.password, sessions, store: rt.store };
      const scenarios: ScenarioResult[] = [];
      for (const scenario of SCENARIOS) {
        if (opts.only && !opts.only.split('|').some((text) => scenario.name.includes(text))) continue;
        scenarios.push(await this.runScenario(rt, client, scenario, env, floors));
      }
      return { runtime: rt.name, description: rt.description, startup: rt.startup, seed: model.entities, scenarios };
    } finally {
      client.close();
    }
  }

  private async runScenario(
    rt: RuntimeUnderTest,
    client: Client,
    scenario: Scenario,
    env: ScenarioEnv,
    floors: Record<FloorKind, LoadPhase>,
  ): Promise<ScenarioResult> {
    const base = { name: scenario.name, operation: scenario.operation, floor: scenario.floor, concurrency: scenario.concurrency };
    const skipped = (reason: string): ScenarioResult => {
      log(`  ${scenario.name}: skipped (${reason})`);
      return { ...base, status: 'skipped', reason };
    };
    if (scenario.sizes && !scenario.sizes.includes(env.size)) return skipped(`not run at size ${env.size}`);
    let built: Awaited<ReturnType<Scenario['build']>>;
    try {
      built = await scenario.build(env);
    } catch (e) {
      return skipped(`setup failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    const probe = Array.isArray(built) ? built[0] : built.probe;
    let response: ScenarioResult['response'];
    if (probe) {
      const reply = await client.send(probe);
      let body: any;
      try {
        body = JSON.parse(reply.body);
      } catch {
        /* not JSON */
      }
      if (reply.status === 501) return skipped(`answers 501 ${body?.error?.code ?? ''}`.trim());
      // What one answer holds, to check the scenario does what it says (e.g. how many services an identity sees).
      response = {
        status: reply.status,
        bytes: Buffer.byteLength(reply.body),
        items: Array.isArray(body?.data) ? body.data.length : undefined,
        totalCount: body?.meta?.pagination?.totalCount,
      };
    }
    if (!Array.isArray(built)) return skipped(built.skip);

    // The read floor answering as many bytes as the scenario, when asked for and when the answer is bigger.
    const floorPhase = floors[scenario.floor];
    const sized: LoadPhase | undefined =
      this.opts.sizedFloor && scenario.floor === 'read' && response && response.bytes > FLOOR_READ_BYTES
        ? { target: floorPhase.target, requests: floorPhase.requests.map((r) => ({ ...r, path: `${r.path}?bytes=${response.bytes}` })) }
        : undefined;
    // The session floor with the scenario's own session, when asked for and when the scenario sends one.
    const token = this.opts.sessionFloor && scenario.floor === 'read' ? built[0].headers?.['zt-session'] : undefined;
    const session: LoadPhase | undefined = token ? { target: floorPhase.target, requests: [{ method: 'GET', path: '/__floor/session', headers: { 'zt-session': token } }] } : undefined;
    // The cert floor writing a faithful login's three rows, when asked for.
    const loginRows: LoadPhase | undefined =
      this.opts.loginRowsFloor && scenario.floor === 'cert'
        ? { target: floorPhase.target, requests: floorPhase.requests.map((r) => ({ ...r, path: '/__floor/cert-login-rows' })) }
        : undefined;
    const extra = [sized, session, loginRows].filter((phase): phase is LoadPhase => phase !== undefined);
    const [floor, m, ...measured] = await this.measure([floorPhase, { target: rt.target, requests: built }, ...extra], scenario.concurrency);
    const sizedFloor = sized ? measured.shift() : undefined;
    const sessionFloor = session ? measured.shift() : undefined;
    const loginRowsFloor = loginRows ? measured.shift() : undefined;
    if (floor.errors > 0) throw new Error(`the ${scenario.floor} floor failed: ${floor.firstError}`);
    if (sizedFloor && sizedFloor.errors > 0) throw new Error(`the sized ${scenario.floor} floor failed: ${sizedFloor.firstError}`);
    if (sessionFloor && sessionFloor.errors > 0) throw new Error(`the session floor failed: ${sessionFloor.firstError}`);
    if (loginRowsFloor && loginRowsFloor.errors > 0) throw new Error(`the login-rows floor failed: ${loginRowsFloor.firstError}`);
    const result: ScenarioResult = {
      ...base,
      status: 'measured',
      measurement: m,
      floorMeasurement: floor,
      floorRatio: floorRatio(m, floor),
      sizedFloor: sizedFloor && response ? { bytes: response.bytes, measurement: sizedFloor, ratio: floorRatio(m, sizedFloor) } : undefined,
      sessionFloor: sessionFloor ? { measurement: sessionFloor, ratio: floorRatio(m, sessionFloor) } : undefined,
      loginRowsFloor: loginRowsFloor ? { measurement: loginRowsFloor, ratio: floorRatio(m, loginRowsFloor) } : undefined,
      statementsPerRequest: rt.statements ? await this.countStatements(rt, client, built) : null,
      session: scenario.floor === 'hash' || scenario.floor === 'cert' ? undefined : env.sessions.via,
      response,
    };
    if (this.opts.profile && (rt.name === 'node' || rt.profilers)) {
      const file = join(ROOT, 'bench/results', `${rt.name}-${scenario.name.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}.cpuprofile`);
      // Node: CPU time of this process (the controller and its floor run here; the load generator does
      // not) per request, steadier than latency on a shared machine. workerd runs in its own process.
      const cpuPerRequest = async (run: () => Promise<Measurement[]>) => {
        const before = process.cpuUsage();
        const [measured] = await run();
        const used = process.cpuUsage(before);
        return rt.name === 'node' ? (used.user + used.system) / Math.max(1, measured.requests) : undefined;
      };
      let scenarioCpu: number | undefined;
      const { summary } = await profiled(file, async () => void (scenarioCpu = await cpuPerRequest(() => this.measure([{ target: rt.target, requests: built }]))), rt.profilers?.controller());
      result.profile = { ...summary, cpuMicrosPerRequest: scenarioCpu };
      console.log(formatSummary(summary));
      // The floor alone under the same profiler: what any request costs here (TLS, HTTP, one read).
      const floorFile = file.replace(/\.cpuprofile$/, '.floor.cpuprofile');
      let floorCpu: number | undefined;
      const floorRun = await profiled(floorFile, async () => void (floorCpu = await cpuPerRequest(() => this.measure([floors[scenario.floor]]))), rt.profilers?.floor());
      result.floorProfile = { ...floorRun.summary, cpuMicrosPerRequest: floorCpu };
      console.log(formatSummary(floorRun.summary));
      if (scenarioCpu !== undefined && floorCpu !== undefined) {
        log(`  ${scenario.name}: server CPU ${scenarioCpu.toFixed(0)} µs/request, its floor ${floorCpu.toFixed(0)} µs/request (${(scenarioCpu / floorCpu).toFixed(2)}x), under the profiler`);
      }
    }
    const st = result.statementsPerRequest;
    log(
      `  ${scenario.name}: ${m.throughput.toFixed(0)} req/s, p50 ${m.latencyMs.p50.toFixed(2)} ms, ${result.floorRatio!.p50.toFixed(2)}x ${scenario.floor} floor (${floor.throughput.toFixed(0)} req/s, p50 ${floor.latencyMs.p50.toFixed(2)} ms)` +
        (st ? `, ${st.reads.toFixed(1)} reads + ${st.writes.toFixed(1)} writes/req` : '') +
        (response?.items !== undefined ? `, ${response.items} items of ${response.totalCount ?? '?'}` : '') +
        (result.sizedFloor ? `; ${result.sizedFloor.ratio.p50.toFixed(2)}x the read floor answering ${result.sizedFloor.bytes} bytes (${result.sizedFloor.measurement.throughput.toFixed(0)} req/s, p50 ${result.sizedFloor.measurement.latencyMs.p50.toFixed(2)} ms)` : '') +
        (result.sessionFloor ? `; ${result.sessionFloor.ratio.p50.toFixed(2)}x the session floor (${result.sessionFloor.measurement.throughput.toFixed(0)} req/s, p50 ${result.sessionFloor.measurement.latencyMs.p50.toFixed(2)} ms)` : '') +
        (result.loginRowsFloor ? `; ${result.loginRowsFloor.ratio.p50.toFixed(2)}x the login-rows floor (${result.loginRowsFloor.measurement.throughput.toFixed(0)} req/s, p50 ${result.loginRowsFloor.measurement.latencyMs.p50.toFixed(2)} ms)` : '') +
        (m.errors ? `, ${m.errors} errors (first: ${m.firstError?.slice(0, 160)})` : ''),
    );
    return result;
  }

  /** Statements per request over a few sequential requests, deferred writes included. */
  private async countStatements(rt: RuntimeUnderTest, client: Client, requests: RequestSpec[]): Promise<{ reads: number; writes: number }> {
    await sleep(200); // let deferred work of the load run finish
    const counted = await rt.statements!.during(async () => {
      for (let i = 0; i < STATEMENT_SAMPLES; i++) await client.send(requests[i % requests.length]);
      await sleep(100);
    });
    return { reads: counted.reads / STATEMENT_SAMPLES, writes: counted.writes / STATEMENT_SAMPLES };
  }

  async cleanup(): Promise<void> {
    for (const fn of this.cleanups.reverse()) {
      try {
        await fn();
      } catch (e) {
        log(`cleanup: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    this.cleanups.length = 0;
  }

  /** What an abrupt exit must still do; synchronous, for the process 'exit' event. */
  cleanupSync(): void {
    this.load.kill();
    rmSync(this.runDir, { recursive: true, force: true });
  }
}

/**
 * Stopping: a normal end closes everything in order. On a signal or the watchdog the process exits at
 * once (wrangler and Miniflare, once loaded, also exit on SIGINT/SIGTERM) and the 'exit' handler does
 * what must not be left behind: Miniflare's own exit hook stops workerd, the load generator is
 * killed and the run directory removed. A run killed outright is swept by the next one.
 */
async function main(): Promise<void> {
  const bench = new Bench(options(process.argv.slice(2)));
  process.on('exit', () => bench.cleanupSync());
  const abort = (code: number, why: string) => {
    process.exitCode = code;
    log(why);
    process.exit(code);
  };
  const watchdog = setTimeout(() => abort(2, `watchdog: still running after ${WATCHDOG_MS / 60_000} minutes, stopping`), WATCHDOG_MS);
  watchdog.unref();
  // Prepended: wrangler's own handler (installed when it is imported) would exit with status 0 first.
  process.prependListener('SIGINT', () => abort(130, 'interrupted'));
  process.prependListener('SIGTERM', () => abort(143, 'terminated'));
  try {
    await bench.run();
    await bench.cleanup();
    process.exit(0);
  } catch (e) {
    console.error(e instanceof Error ? (e.stack ?? e.message) : e);
    await bench.cleanup();
    process.exit(1);
  }
}

await main();
