/**
 * The controller's counters, behind one small interface with two sinks:
 * - `PrometheusMetrics` (Node, `ZITI_METRICS=true`): kept in memory and rendered at `/metrics` in the
 *   Prometheus text format (version 0.0.4);
 * - `storeTally` (Workers): there is no scrape target on Workers, so the request log line carries the
 *   request counters and this tally adds the store statements run since the previous line.
 * Pure code: no Node module, no global state outside the instances.
 */
export interface Metrics {
  /** One answered request; `operationId` is the spec's, or `health-checks`, `metrics`, `swagger.json`, `unmatched`. */
  request(operationId: string, method: string, status: number, seconds: number): void;
  /** One login attempt: `method` is password, cert, ext-jwt or mfa; `outcome` success, failure, throttled or invalid. */
  login(method: string, outcome: string): void;
  /** One store round trip: `kind` is `statement` or `batch`. */
  storeStatement(kind: string, seconds: number, failed: boolean): void;
}


/** Latency buckets in seconds, from a cached read to a slow PBKDF2 login. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Labels = Record<string, string>;

/** Rendered label sets, memoised: the same few combinations recur on every request. */
const renderedLabels = new Map<string, string>();

function labelKey(labels: Labels): string {
  const id = Object.keys(labels).join(',') + '\u0000' + Object.values(labels).join('\u0000');
  let key = renderedLabels.get(id);
  if (key === undefined) {
    key = renderLabels(labels);
    // Bounded: label values are operationIds, methods, statuses and fixed outcome names.
    if (renderedLabels.size < 10_000) renderedLabels.set(id, key);
  }
  return key;
}

function renderLabels(labels: Labels): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');
}

class Counter {
  readonly values = new Map<string, number>();
  constructor(readonly name: string, readonly help: string) {}
  inc(labels: Labels, by = 1): void {
    const k = labelKey(labels);
    this.values.set(k, (this.values.get(k) ?? 0) + by);
  }
  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`);
    for (const [k, v] of this.values) out.push(`${this.name}{${k}} ${v}`);
  }
}

class Histogram {
  readonly series = new Map<string, { buckets: number[]; sum: number; count: number }>();
  constructor(readonly name: string, readonly help: string) {}
  observe(labels: Labels, value: number): void {
    const k = labelKey(labels);
    let s = this.series.get(k);
    if (!s) this.series.set(k, (s = { buckets: BUCKETS.map(() => 0), sum: 0, count: 0 }));
    for (let i = 0; i < BUCKETS.length; i++) if (value <= BUCKETS[i]) s.buckets[i]++;
    s.sum += value;
    s.count++;
  }
  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`);
    for (const [k, s] of this.series) {
      const sep = k ? ',' : '';
      BUCKETS.forEach((le, i) => out.push(`${this.name}_bucket{${k}${sep}le="${le}"} ${s.buckets[i]}`));
      out.push(`${this.name}_bucket{${k}${sep}le="+Inf"} ${s.count}`);
      out.push(`${this.name}_sum{${k}} ${s.sum}`, `${this.name}_count{${k}} ${s.count}`);
    }
  }
}

export class PrometheusMetrics implements Metrics {
  private readonly requests = new Counter('ziti_http_requests_total', 'Requests answered, by operationId, method and status.');
  private readonly latency = new Histogram('ziti_http_request_duration_seconds', 'Time to answer a request, by operationId.');
  private readonly logins = new Counter('ziti_logins_total', 'Login attempts, by authentication method and outcome.');
  private readonly store = new Histogram('ziti_store_statement_duration_seconds', 'Store round trips (one statement or one atomic batch), by kind.');
  private readonly storeErrors = new Counter('ziti_store_statement_errors_total', 'Store round trips that failed, by kind.');
  private readonly startedAt = Date.now();

  request(operationId: string, method: string, status: number, seconds: number): void {
    this.requests.inc({ operation_id: operationId, method, status: String(status) });
    this.latency.observe({ operation_id: operationId }, seconds);
  }
  login(method: string, outcome: string): void {
    this.logins.inc({ method, outcome });
  }
  storeStatement(kind: string, seconds: number, failed: boolean): void {
    this.store.observe({ kind }, seconds);
    if (failed) this.storeErrors.inc({ kind });
  }

  /** The Prometheus text exposition of every series recorded so far. */
  render(): string {
    const out: string[] = [];
    this.requests.render(out);
    this.latency.render(out);
    this.logins.render(out);
    this.store.render(out);
    this.storeErrors.render(out);
    out.push('# HELP ziti_process_start_time_seconds Start time of the process since the Unix epoch.', '# TYPE ziti_process_start_time_seconds gauge');
    out.push(`ziti_process_start_time_seconds ${Math.floor(this.startedAt / 1000)}`);
    return out.join('\n') + '\n';
  }
}

/** Store statements since the last `take()`: what a Workers request log line reports (isolate-wide). */
export class StoreTally implements Metrics {
  private statements = 0;
  private failures = 0;
  private ms = 0;
  request(): void {}
  login(): void {}
  storeStatement(_kind: string, seconds: number, failed: boolean): void {
    this.statements++;
    if (failed) this.failures++;
    this.ms += seconds * 1000;
  }
  take(): { statements: number; failures: number; ms: number } | undefined {
    if (this.statements === 0) return undefined;
    const t = { statements: this.statements, failures: this.failures, ms: Math.round(this.ms * 100) / 100 };
    this.statements = this.failures = this.ms = 0;
    return t;
  }
}

/** Maps an `authenticate` answer onto a login outcome. */
export function loginOutcome(status: number): string {
  if (status >= 200 && status < 300) return 'success';
  if (status === 401 || status === 403) return 'failure';
  if (status === 429) return 'throttled';
  if (status >= 400 && status < 500) return 'invalid';
  return 'error';
}
