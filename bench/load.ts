/**
 * The load generator. It runs in its own process (forked by the orchestrator) so that it does not
 * share an event loop with the Node server it measures: a fixed number of concurrent keep-alive
 * connections, each sending its next request as soon as the previous one answered (closed loop),
 * for a warm-up period and then a measured window. Bounded by time and by a request count.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createAgent, send, type RequestSpec, type Target } from './http.js';

export interface LoadJob {
  target: Target;
  /** Sent in turn (e.g. one login body per bench user); at least one. */
  requests: RequestSpec[];
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** Upper bound on requests in the measured window, whatever the duration. */
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

/** Runs one job in this process. */
export async function runLoad(job: LoadJob): Promise<LoadResult> {
  if (job.requests.length === 0) throw new Error('a load job needs at least one request');
  const agent = createAgent(job.target, job.concurrency);
  const start = performance.now();
  const measureFrom = start + job.warmupMs;
  const end = measureFrom + job.durationMs;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let firstError: string | undefined;
  let next = 0;

  const record = (status: string, ok: boolean, ms: number, detail: () => string) => {
    const now = performance.now();
    if (now < measureFrom || now > end) return;
    statuses[status] = (statuses[status] ?? 0) + 1;
    latencies.push(ms);
    if (!ok) {
      errors++;
      firstError ??= detail();
    }
  };

  const worker = async () => {
    while (performance.now() < end && latencies.length < job.maxRequests) {
      const spec = job.requests[next++ % job.requests.length];
      const sentAt = performance.now();
      try {
        const reply = await send(agent, job.target, spec, 30_000);
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
  const windowMs = Math.min(performance.now(), end) - measureFrom;
  agent.destroy();
  return {
    requests: latencies.length,
    errors,
    statuses,
    firstError,
    throughput: windowMs > 0 ? (latencies.length * 1000) / windowMs : 0,
    latencyMs: summarize(latencies),
    windowMs,
  };
}

type ToChild = { type: 'run'; id: number; job: LoadJob };
type FromChild = { type: 'result'; id: number; result?: LoadResult; error?: string };

/** The orchestrator's handle on the load-generator process. */
export class LoadGenerator {
  private child: ChildProcess;
  private nextId = 0;
  private pending = new Map<number, { resolve(r: LoadResult): void; reject(e: Error): void }>();

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

  run(job: LoadJob): Promise<LoadResult> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // The job bounds itself; this is the backstop if the child hangs.
      const backstop = setTimeout(() => {
        if (this.pending.delete(id)) reject(new Error('load generator did not answer in time'));
      }, job.warmupMs + job.durationMs + 60_000);
      backstop.unref();
      this.child.send({ type: 'run', id, job } satisfies ToChild);
    });
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
