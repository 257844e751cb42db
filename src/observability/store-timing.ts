import type { Metrics } from './metrics.js';

/**
 * Times every store round trip by wrapping the driver object below drizzle, so repos stay unaware.
 * Works on plain objects of the two drivers' shapes; no Node module is imported.
 */

async function timed<T>(metrics: Metrics, kind: string, run: () => Promise<T>): Promise<T> {
  const start = performance.now();
  let failed = false;
  try {
    return await run();
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    metrics.storeStatement(kind, (performance.now() - start) / 1000, failed);
  }
}

interface LibsqlLike {
  execute(...args: never[]): Promise<unknown>;
  batch(...args: never[]): Promise<unknown>;
}

/** A libSQL client whose `execute` and `batch` are timed; everything else passes through. */
export function timeLibsqlClient<C extends LibsqlLike>(client: C, metrics: Metrics): C {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if ((prop === 'execute' || prop === 'batch') && typeof value === 'function') {
        const kind = prop === 'execute' ? 'statement' : 'batch';
        return (...args: unknown[]) => timed(metrics, kind, () => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

interface D1StatementLike {
  bind(...values: unknown[]): D1StatementLike;
  [method: string]: unknown;
}
interface D1Like {
  prepare(query: string): D1StatementLike;
  batch(statements: unknown[]): Promise<unknown>;
}

const STATEMENT_RUNS = ['all', 'run', 'first', 'raw'] as const;

/**
 * A D1 binding whose statements and batches are timed. Statements are the binding's own objects with
 * their run methods replaced on the instance, so `batch()` still receives genuine D1 statements.
 */
export function timeD1<D extends object>(d1: D, metrics: Metrics): D {
  // The binding's own types are stricter than the little this wrapper touches.
  const binding = d1 as unknown as D1Like;
  const patch = (stmt: D1StatementLike): D1StatementLike => {
    const bind = stmt.bind;
    stmt.bind = (...values: unknown[]) => patch(bind.apply(stmt, values));
    for (const name of STATEMENT_RUNS) {
      const run = stmt[name];
      if (typeof run === 'function') stmt[name] = (...args: unknown[]) => timed(metrics, 'statement', () => run.apply(stmt, args) as Promise<unknown>);
    }
    return stmt;
  };
  return new Proxy(binding, {
    get(target, prop, receiver) {
      if (prop === 'prepare') return (query: string) => patch(target.prepare(query));
      if (prop === 'batch') return (statements: unknown[]) => timed(metrics, 'batch', () => target.batch(statements));
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as unknown as D;
}
