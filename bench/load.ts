/**
 * The load generator. It runs in its own process (forked by the orchestrator) so that it does not
 * share an event loop with the Node server it measures: a fixed number of concurrent keep-alive
 * connections, each sending its next request as soon as the previous one answered (closed loop),
 * for a warm-up period and then measured slices. Bounded by time and by a request count.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createAgent, send, type Agent, type RequestSpec, type Target } from './http.js';

/** One stream of requests to measure: e.g. a scenario, or the floor it is compared with. */
export interface LoadPhase {
  target: Target;
  /** Sent in turn (e.g. one login body per bench user); at least one. */
  requests: RequestSpec[];
}

/**
 * Phases are measured alternately, in `rounds` slices each, so that a drift of the machine (other
 * tenants, GC, frequency) hits a scenario and its floor alike.
 */
export interface LoadJob {
  phases: LoadPhase[];
  concurrency: number;
  /** Unmeasured time per phase before the first slice (JIT, caches, connections). */
  warmupMs: number;
  /** Measured time per phase, split over the rounds. */
  durationMs: number;
  rounds: number;
  /** Upper bound on measured requests per phase, whatever the duration. */
  maxRequests: number;
}

export interface Latency {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}

export interface LoadResult {
  /** Responses completed in the measured window. */
  requests: number;
  /** Non-2xx responses and network errors in the measured window. */
  errors: number;
  /** Count per status code ("ERR" for network errors). */
  statuses: Record<string, number>;
  /** The first failure seen: status and the start of an error body (error envelopes only, never a 2xx body). */
  firstError?: string;
  throughput: number;
  latencyMs: Latency;
  windowMs: number;
}

export function percentile(sorted: Float64Array | number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function summarize(samples: number[]): Latency {
  const sorted = Float64Array.from(samples).sort();
  const sum = samples.reduce((a, b) => a + b, 0);
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean: samples.length ? sum / samples.length : 0,
    max: sorted.length ? sorted[sorted.length - 1] : 0,
  };
}

interface PhaseState {
  phase: LoadPhase;
  agent: Agent;
  next: number;
  latencies: number[];
  statuses: Record<string, number>;
  errors: number;
  firstError?: string;
  windowMs: number;
}

/** Unmeasured lead-in at the start of each measured slice: idle connections are re-established. */
const LEAD_IN_MS = 150;

/**
 * Drives one phase for `ms` with the job's concurrency; responses completed after `measureFrom` and
 * before the end are recorded. Waits for the requests in flight at the end (they are not recorded).
 */
async function drive(state: PhaseState, job: LoadJob, ms: number, measureFrom: number | null): Promise<void> {
  const end = performance.now() + ms;
  const record = (status: string, ok: boolean, latency: number, detail: () => string) => {
    const now = performance.now();
    if (measureFrom === null || now < measureFrom || now > end) return;
    state.statuses[status] = (state.statuses[status] ?? 0) + 1;
    state.latencies.push(latency);
    if (!ok) {
      state.errors++;
      state.firstError ??= detail();
    }
  };
  const worker = async () => {
    while (performance.now() < end && state.latencies.length < job.maxRequests) {
      const spec = state.phase.requests[state.next++ % state.phase.requests.length];
      const sentAt = performance.now();
      try {
        // A response arriving long after the slice would not be counted: do not wait for it forever.
        const reply = await send(state.agent, state.phase.target, spec, Math.max(1_000, end - sentAt + 5_000), true);
        const ok = reply.status >= 200 && reply.status < 300;
        record(String(reply.status), ok, reply.ms, () => `${reply.status} ${reply.body.slice(0, 200)}`);
      } catch (e) {
        record('ERR', false, performance.now() - sentAt, () => (e instanceof Error ? e.message : String(e)));
        // A refused connection fails instantly: do not spin.
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, worker));
  if (measureFrom !== null) state.windowMs += Math.max(0, end - measureFrom);
}

/** Runs one job in this process: warm-up of every phase, then the rounds of measured slices. */
export async function runLoad(job: LoadJob): Promise<LoadResult[]> {
  if (job.phases.some((p) => p.requests.length === 0)) throw new Error('a load phase needs at least one request');
  const states: PhaseState[] = job.phases.map((phase) => ({
    phase,
    agent: createAgent(phase.target, job.concurrency),
    next: 0,
    latencies: [],
    statuses: {},
    errors: 0,
    windowMs: 0,
  }));
  try {
    for (const state of states) if (job.warmupMs > 0) await drive(state, job, job.warmupMs, null);
    const rounds = Math.max(1, job.rounds);
    const slice = job.durationMs / rounds;
    for (let r = 0; r < rounds; r++) {
      for (const state of states) await drive(state, job, LEAD_IN_MS + slice, performance.now() + LEAD_IN_MS);
    }
  } finally {
    for (const state of states) state.agent.destroy();
  }
  return states.map((s) => ({
    requests: s.latencies.length,
    errors: s.errors,
    statuses: s.statuses,
    firstError: s.firstError,
    throughput: s.windowMs > 0 ? (s.latencies.length * 1000) / s.windowMs : 0,
    latencyMs: summarize(s.latencies),
    windowMs: s.windowMs,
  }));
}

type ToChild = { type: 'run'; id: number; job: LoadJob };
type FromChild = { type: 'result'; id: number; result?: LoadResult[]; error?: string };

/** The orchestrator's handle on the load-generator process. */
export class LoadGenerator {
  private child: ChildProcess;
  private nextId = 0;
  private pending = new Map<number, { resolve(r: LoadResult[]): void; reject(e: Error): void }>();

  constructor() {
    this.child = fork(fileURLToPath(import.meta.url), ['--load-generator'], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (msg: FromChild) => {
      const waiter = this.pending.get(msg.id);
      if (!waiter) return;
      this.pending.delete(msg.id);
      if (msg.result) waiter.resolve(msg.result);
      else waiter.reject(new Error(msg.error ?? 'load generator failed'));
    });
    this.child.on('exit', (code) => {
      for (const w of this.pending.values()) w.reject(new Error(`load generator exited (${code})`));
      this.pending.clear();
    });
  }

  run(job: LoadJob): Promise<LoadResult[]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // The job bounds itself; this is the backstop if the child hangs.
      const backstop = setTimeout(() => {
        if (this.pending.delete(id)) reject(new Error('load generator did not answer in time'));
      }, job.phases.length * (job.warmupMs + job.durationMs + job.rounds * (LEAD_IN_MS + 30_000)) + 60_000);
      backstop.unref();
      this.child.send({ type: 'run', id, job } satisfies ToChild);
    });
  }

  /** Synchronous stop, for process exit. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.disconnect();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

// Child process: run jobs as they arrive; leave when the orchestrator goes away.
if (process.argv.includes('--load-generator') && process.send) {
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (msg: ToChild) => {
    if (msg.type !== 'run') return;
    try {
      const result = await runLoad(msg.job);
      process.send!({ type: 'result', id: msg.id, result } satisfies FromChild);
    } catch (e) {
      process.send!({ type: 'result', id: msg.id, error: e instanceof Error ? e.message : String(e) } satisfies FromChild);
    }
  });
}
