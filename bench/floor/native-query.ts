/**
 * The floor's store path on Node: statements of the native driver, prepared once per SQL text and
 * kept, the fastest reads and writes the platform allows.
 */
import Database from 'libsql';
import type { Query, Run, RunAll } from './app.js';

export function nativeFloorQuery(file: string): { query: Query; run: Run; runAll: RunAll; close(): void } {
  const db = new Database(file);
  // The cert floor's session inserts share the file with the controller, which may be writing (deferred work).
  db.exec('PRAGMA busy_timeout = 5000');
  // Raw mode and one get(): the floor's reads return at most one row, and building that row's object
  // from cached column names is cheaper than the driver's object mode.
  const kept = new Map<string, { stmt: ReturnType<typeof db.prepare>; names: string[] }>();
  const query: Query = async (sql, args) => {
    let entry = kept.get(sql);
    if (!entry) {
      const stmt = db.prepare(sql);
      entry = { stmt, names: (stmt.columns() as { name: string }[]).map((c) => c.name) };
      stmt.raw(true);
      kept.set(sql, entry);
    }
    const values = entry.stmt.get(args) as unknown[] | undefined;
    if (!values) return [];
    const row: Record<string, unknown> = {};
    for (let i = 0; i < entry.names.length; i++) row[entry.names[i]] = values[i];
    return [row];
  };
  const writes = new Map<string, ReturnType<typeof db.prepare>>();
  const write = (sql: string) => {
    let stmt = writes.get(sql);
    if (!stmt) writes.set(sql, (stmt = db.prepare(sql)));
    return stmt;
  };
  const run: Run = async (sql, args) => void write(sql).run(args);
  // As the controller's batches run (src/db/native.ts): the write lock taken up front, synchronous inside.
  const runAll: RunAll = async (statements) => {
    const prepared = statements.map(({ sql }) => write(sql));
    db.exec('BEGIN IMMEDIATE');
    try {
      for (let i = 0; i < prepared.length; i++) prepared[i].run(statements[i].args);
      db.exec('COMMIT');
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw err;
    }
  };
  return { query, run, runAll, close: () => db.close() };
}
