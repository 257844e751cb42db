/**
 * Measures filtered, sorted identity lists over a large store (default 100,000 identities) through
 * the real app, and prints SQLite's query plan for each, to show which ones an index serves.
 * Usage: npx tsx scripts/measure-list.ts [count]
 */
import 'reflect-metadata';
import { sql } from 'drizzle-orm';
import { identities } from '../src/db/schema/index.js';
import { createNodeTestApp } from '../test/helpers/node-app.js';

const count = Number(process.argv[2] ?? 100_000);
const t = await createNodeTestApp();
const now = Date.now();
const rows = [];
for (let i = 0; i < count; i++) {
  rows.push({ id: `bench${i.toString().padStart(7, '0')}`, name: `identity-${i.toString().padStart(7, '0')}`, createdAt: now - i * 1000, updatedAt: now, roleAttributes: JSON.stringify(i % 2 ? ['role-2'] : []) });
  if (rows.length === 8 || i === count - 1) {
    await t.deps.db.insert(identities).values(rows.splice(0));
  }
}
const token = await t.client.login();
const cases = [
  'name = "identity-0050000"',
  'name >= "identity-0090000" sort by name limit 25',
  'sort by name limit 25',
  'sort by createdAt desc limit 25',
  'createdAt >= datetime(2020-01-01T00:00:00Z) sort by createdAt desc limit 25',
  'name contains "12345" sort by name limit 25',
  'anyOf(roleAttributes) = "role-2" sort by name limit 25',
];
for (const filter of cases) {
  const path = `/edge/management/v1/identities?filter=${encodeURIComponent(filter)}`;
  await t.client.get(path, token);
  const times: number[] = [];
  let total = 0;
  for (let i = 0; i < 20; i++) {
    const s = performance.now();
    const r = await t.client.get(path, token);
    times.push(performance.now() - s);
    total = r.body.meta?.pagination?.totalCount;
  }
  times.sort((a, b) => a - b);
  console.log(`${filter.padEnd(80)} p50 ${times[10].toFixed(1)} ms  total ${total}`);
}
// Query plans for the page query shapes (the COUNT runs over the same predicate).
for (const q of [
  sql`SELECT id FROM identities ORDER BY name, id LIMIT 25`,
  sql`SELECT id FROM identities WHERE name >= 'identity-0090000' ORDER BY name, id LIMIT 25`,
  sql`SELECT id FROM identities ORDER BY created_at DESC, id LIMIT 25`,
  sql`SELECT count(*) FROM identities WHERE name >= 'identity-0090000'`,
]) {
  const plan = await t.deps.db.all(sql`EXPLAIN QUERY PLAN ${q}`);
  console.log(JSON.stringify(plan.map((p: any) => p.detail)));
}
t.close();
