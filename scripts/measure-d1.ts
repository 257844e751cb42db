/**
 * What one statement costs through Miniflare's local D1, and whether it is prepared again each time: a
 * one-table read and a statement with three sub-queries (the shape of the session check with a rider),
 * each sent again with the same text and with a text made unique by a comment. Each row is µs per
 * statement, one request sending them in turn (no concurrency), two rounds.
 *
 *   npx tsx scripts/measure-d1.ts
 */
import { Miniflare } from 'miniflare';

const mf = new Miniflare({
  modules: true,
  compatibilityDate: '2025-01-01',
  d1Databases: ['DB'],
  script: `export default {
    async fetch(request, env) {
      const url = new URL(request.url);
      const sql = url.searchParams.get('sql');
      const n = Number(url.searchParams.get('n'));
      const unique = url.searchParams.get('unique') === '1';
      for (let i = 0; i < n; i++) await env.DB.prepare(unique ? sql + ' /* ' + i + '-' + Math.random() + ' */' : sql).bind('x').all();
      return new Response('ok');
    },
  };`,
});

const db = await mf.getD1Database('DB');
await db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, a TEXT, b TEXT, c TEXT)');
await db.exec('CREATE TABLE u (id TEXT PRIMARY KEY, t_id TEXT, d TEXT)');
const columns = Array.from({ length: 28 }, (_, i) => `t.${'abc'[i % 3]}`).join(', ');
const STATEMENTS = {
  'one-table read': 'SELECT a, b, c FROM t WHERE id = ?',
  'three sub-queries': `SELECT json_array(${columns}),
    (SELECT json_group_array(json_array(x.id, x.d)) FROM (SELECT u.id, u.d FROM u WHERE u.t_id = t.id UNION ALL SELECT u.id, u.d FROM u WHERE u.d = t.a
      UNION ALL SELECT u.id, u.d FROM u JOIN t AS t2 ON t2.id = u.t_id WHERE t2.b = t.c) AS x),
    (SELECT count(*) FROM u AS u2 WHERE u2.id IN (SELECT u3.id FROM u AS u3 WHERE u3.t_id = t.id INTERSECT SELECT u4.id FROM u AS u4 WHERE u4.d = t.b))
    FROM t LEFT JOIN u ON u.t_id = t.id WHERE t.id = ?`,
};

async function measure(name: string, sql: string, unique: boolean): Promise<void> {
  const send = (n: number) => mf.dispatchFetch(`http://bench/?n=${n}&unique=${unique ? 1 : 0}&sql=${encodeURIComponent(sql)}`).then((r) => r.text());
  await send(200);
  const n = 2000;
  const started = performance.now();
  await send(n);
  console.log(`${name}${unique ? ', unique text' : ', same text'}`.padEnd(36), `${(((performance.now() - started) * 1000) / n).toFixed(0)} µs`);
}

try {
  for (let round = 0; round < 2; round++) {
    for (const [name, sql] of Object.entries(STATEMENTS)) {
      await measure(name, sql, false);
      await measure(name, sql, true);
    }
  }
} finally {
  await mf.dispose();
}
