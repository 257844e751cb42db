/**
 * Measures the policy-link representation (docs/adr/0006-policy-links.md) at OpenZiti's `many-services`
 * size through the real app on a temporary libSQL file: entities are inserted directly (their rows have
 * no links of their own until policies exist), the 300 policies are created through the API, so every
 * link row comes from the code path the API uses. Prints store size, link rows, list latencies with an
 * exact totalCount, and write latencies of a policy matching half the model and of attribute changes.
 * Usage: npx tsx scripts/measure-policy-links.ts [scale]   (scale 1 = many-services; 0.1 for a quick run)
 */
import 'reflect-metadata';
import { statSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { SIZES, identityName, policyRoles, roleAttributes, routerName, serviceName, typicalIdentityIndex, WORST_IDENTITY_INDEX } from '../bench/model.js';
import { edgeRouters, identities, services } from '../src/db/schema/index.js';
import { createNodeTestApp } from '../test/helpers/node-app.js';

const scale = Number(process.argv[2] ?? 1);
const size = SIZES['many-services'];
const n = { identities: Math.round(size.identities * scale), services: Math.round(size.services * scale), routers: Math.max(5, Math.round(size.edgeRouters * scale)), policies: size.policiesPerKind };
const file = `/tmp/policy-links-${process.pid}.db`;
const t = await createNodeTestApp({}, { dbFile: file });
const db = t.deps.db;
const now = Date.now();
const MGMT = '/edge/management/v1';

async function insertAll<T>(table: any, count: number, row: (i: number) => T): Promise<void> {
  for (let i = 0; i < count; i += 500) {
    const rows = [];
    for (let j = i; j < Math.min(count, i + 500); j++) rows.push(row(j));
    await db.insert(table).values(rows);
  }
}
const id = (p: string, i: number) => `${p}${String(i).padStart(6, '0')}`;
let t0 = performance.now();
await insertAll(identities, n.identities, (i) => ({ id: id('i', i), name: identityName(i), createdAt: now, updatedAt: now, roleAttributes: JSON.stringify(roleAttributes(i)) }));
await insertAll(services, n.services, (i) => ({ id: id('s', i), name: serviceName(i), createdAt: now, updatedAt: now, roleAttributes: JSON.stringify(roleAttributes(i)) }));
await insertAll(edgeRouters, n.routers, (i) => ({ id: id('r', i), name: routerName(i), createdAt: now, updatedAt: now, roleAttributes: JSON.stringify(roleAttributes(i)) }));
console.log(`entities: ${n.identities} identities, ${n.services} services, ${n.routers} routers in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const token = await t.client.login();
const post = async (path: string, body: unknown) => {
  const r = await t.client.request(MGMT + path, { body, token });
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text.slice(0, 200)}`);
  return r.body.data.id as string;
};
t0 = performance.now();
const policyTimes: number[] = [];
for (let j = 0; j < n.policies; j++) {
  const { a, b } = policyRoles(j);
  const semantic = j % 2 ? 'AnyOf' : 'AllOf';
  let s = performance.now();
  // Policy 0 gives every service to half the identities, so the worst-case identity reaches all of them.
  await post('/service-policies', { name: `sp-${j}`, type: j % 3 ? 'Dial' : 'Bind', semantic, identityRoles: j === 0 ? ['#role-2'] : [a], serviceRoles: j === 0 ? ['#all'] : [b] });
  policyTimes.push(performance.now() - s);
  s = performance.now();
  await post('/edge-router-policies', { name: `erp-${j}`, semantic, identityRoles: [a], edgeRouterRoles: [b] });
  policyTimes.push(performance.now() - s);
  s = performance.now();
  await post('/service-edge-router-policies', { name: `serp-${j}`, semantic, serviceRoles: [a], edgeRouterRoles: [b] });
  policyTimes.push(performance.now() - s);
}
console.log(`policies: ${n.policies * 3} created through the API in ${((performance.now() - t0) / 1000).toFixed(1)} s (p50 ${pct(policyTimes, 50)} ms, max ${pct(policyTimes, 100)} ms)`);

function pct(xs: number[], p: number): string {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)].toFixed(1);
}
async function timeIt(label: string, times: number, fn: () => Promise<unknown>): Promise<void> {
  await fn();
  const xs: number[] = [];
  let last: unknown;
  for (let i = 0; i < times; i++) {
    const s = performance.now();
    last = await fn();
    xs.push(performance.now() - s);
  }
  console.log(`${label.padEnd(72)} p50 ${pct(xs, 50).padStart(7)} ms  p95 ${pct(xs, 95).padStart(7)} ms${last !== undefined ? `  (${String(last)})` : ''}`);
}

const [{ links }] = await db.all<{ links: number }>(sql`SELECT count(*) AS links FROM policy_links`);
await t.libsql!.execute('PRAGMA wal_checkpoint(TRUNCATE)');
console.log(`policy_links rows: ${links}; store file: ${(statSync(file).size / 1e6).toFixed(1)} MB`);

const worst = id('i', WORST_IDENTITY_INDEX);
const typical = id('i', typicalIdentityIndex(n.identities));
const total = async (path: string) => {
  const r = await t.client.get(MGMT + path, token);
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text.slice(0, 200)}`);
  return `totalCount ${r.body.meta.pagination.totalCount}, ${r.body.data.length} rows`;
};
await timeIt('GET /identities/{worst}/services?limit=500 (HTTP, rendered)', 30, () => total(`/identities/${worst}/services?limit=500`));
await timeIt('GET /identities/{worst}/services?limit=10 (HTTP, rendered)', 30, () => total(`/identities/${worst}/services?limit=10`));
await timeIt('GET /identities/{typical}/services?limit=10 (HTTP, rendered)', 30, () => total(`/identities/${typical}/services?limit=10`));
await timeIt('GET /identities/{worst}/edge-routers?limit=500 (HTTP)', 30, () => total(`/identities/${worst}/edge-routers?limit=500`));
await timeIt('GET /services?limit=10 (HTTP, floor-like plain list)', 30, () => total(`/services?limit=10`));

// The first read after a write that moved the generation recounts (a policy PATCH that changes nothing).
const miss: number[] = [];
const anyPolicy = (await t.client.get(`${MGMT}/service-policies?limit=1`, token)).body.data[0];
for (let k = 0; k < 10; k++) {
  await t.client.request(`${MGMT}/service-policies/${anyPolicy.id}`, { method: 'PATCH', body: { semantic: anyPolicy.semantic }, token });
  const s = performance.now();
  await total(`/identities/${worst}/services?limit=500`);
  miss.push(performance.now() - s);
}
console.log(`GET /identities/{worst}/services?limit=500 first read after a policy write     p50 ${pct(miss, 50)} ms  p95 ${pct(miss, 95)} ms`);

// The query shapes alone: page ids and exact counts.
const reach = (who: string) => sql`EXISTS (SELECT 1 FROM policy_links za JOIN policy_links zb ON zb.policy_id = za.policy_id AND zb.role = 'service' AND zb.entity_id = services.id WHERE za.entity_id = ${who} AND za.role = 'identity' AND za.policy_type IN ('dial','bind'))`;
await timeIt('SQL worst page: 500 ids by id (EXISTS)', 30, async () => (await db.all(sql`SELECT id FROM services WHERE ${reach(worst)} ORDER BY id LIMIT 500`)).length);
await timeIt('SQL worst exact count: EXISTS per service', 30, async () => (await db.all<{ n: number }>(sql`SELECT count(*) AS n FROM services WHERE ${reach(worst)}`))[0].n);
const reachFromServices = (who: string) => sql`EXISTS (SELECT 1 FROM policy_links zb CROSS JOIN policy_links za ON za.policy_id = zb.policy_id AND za.role = 'identity' AND za.entity_id = ${who} WHERE zb.entity_id = services.id AND zb.role = 'service' AND zb.policy_type IN ('dial','bind'))`;
await timeIt('SQL worst page: 500 ids, walking each service\'s policies', 30, async () => (await db.all(sql`SELECT id FROM services WHERE ${reachFromServices(worst)} ORDER BY id LIMIT 500`)).length);
await timeIt('SQL worst exact count, walking each service\'s policies', 30, async () => (await db.all<{ n: number }>(sql`SELECT count(*) AS n FROM services WHERE ${reachFromServices(worst)}`))[0].n);
await timeIt('SQL worst exact count: COUNT(DISTINCT) over the join', 10, async () =>
  (await db.all<{ n: number }>(sql`SELECT count(DISTINCT zb.entity_id) AS n FROM policy_links za JOIN policy_links zb ON zb.policy_id = za.policy_id AND zb.role = 'service' WHERE za.entity_id = ${worst} AND za.role = 'identity' AND za.policy_type IN ('dial','bind')`))[0].n,
);
await timeIt('SQL typical exact count: EXISTS per service', 30, async () => (await db.all<{ n: number }>(sql`SELECT count(*) AS n FROM services WHERE ${reach(typical)}`))[0].n);

// What materialising identity x service would cost: reachable services of a sample, extrapolated.
let pairs = 0;
const sample = 64;
for (let k = 0; k < sample; k++) {
  const who = id('i', Math.floor((k * n.identities) / sample));
  pairs += (await db.all<{ n: number }>(sql`SELECT count(*) AS n FROM services WHERE ${reach(who)}`))[0].n;
}
console.log(`materialised identity x service pairs (estimated from ${sample} identities): ${Math.round((pairs / sample) * n.identities).toLocaleString('en')}`);

// Writes: a service policy matching half of all identities and half of all services, created, changed, deleted.
const writes: Record<string, number[]> = { create: [], patch: [], delete: [] };
for (let k = 0; k < 5; k++) {
  let s = performance.now();
  const pid = await post('/service-policies', { name: `half-${k}`, type: 'Dial', semantic: 'AllOf', identityRoles: ['#role-2'], serviceRoles: ['#role-2'] });
  writes.create.push(performance.now() - s);
  s = performance.now();
  await t.client.request(`${MGMT}/service-policies/${pid}`, { method: 'PATCH', body: { serviceRoles: ['#role-3'] }, token });
  writes.patch.push(performance.now() - s);
  s = performance.now();
  await t.client.request(`${MGMT}/service-policies/${pid}`, { method: 'DELETE', token });
  writes.delete.push(performance.now() - s);
}
for (const [k, xs] of Object.entries(writes)) console.log(`service policy matching half of identities and services: ${k.padEnd(6)} p50 ${pct(xs, 50)} ms, max ${pct(xs, 100)} ms`);
const attr: number[] = [];
for (let k = 0; k < 20; k++) {
  const s = performance.now();
  const r = await t.client.request(`${MGMT}/identities/${id('i', 1 + k * 7)}`, { method: 'PATCH', body: { roleAttributes: k % 2 ? ['role-2', 'role-5'] : ['role-3'] }, token });
  if (r.status !== 200) throw new Error(r.text);
  attr.push(performance.now() - s);
}
console.log(`identity attribute change (PATCH roleAttributes):                 p50 ${pct(attr, 50)} ms, p95 ${pct(attr, 95)} ms`);
const sattr: number[] = [];
for (let k = 0; k < 20; k++) {
  const s = performance.now();
  await t.client.request(`${MGMT}/services/${id('s', 1 + k * 7)}`, { method: 'PATCH', body: { roleAttributes: k % 2 ? ['role-2', 'role-5'] : ['role-3'] }, token });
  sattr.push(performance.now() - s);
}
console.log(`service attribute change (PATCH roleAttributes):                  p50 ${pct(sattr, 50)} ms, p95 ${pct(sattr, 95)} ms`);
const plan = await db.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN SELECT count(*) FROM services WHERE ${reach(worst)}`);
console.log(`plan of the count: ${plan.map((p) => p.detail).join(' | ')}`);
t.close();
