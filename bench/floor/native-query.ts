/**
 * The floor's read path on Node: a prepared statement of the native driver, prepared once per SQL
 * text and kept, the fastest read the platform allows.
 */
import Database from 'libsql';
import type { Query } from './app.js';

export function nativeFloorQuery(file: string): { query: Query; close(): void } {
  const db = new Database(file);
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
  return { query, close: () => db.close() };
}
