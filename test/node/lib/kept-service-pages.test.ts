import { describe, expect, it } from 'vitest';
import type { ServiceDetail } from '../../../src/generated/management-types.js';
import { serialise } from '../../../src/lib/json.js';
import { KeptServicePages, SETTLE_MS } from '../../../src/resources/services/page-cache.js';

const NOW = 1_000_000_000;
const source = { servicesChangedAt: NOW - SETTLE_MS, postureState: null };
/** A page of about `bytes` bytes of JSON. */
const page = (name: string, bytes = 100) => ({ data: [{ id: name, name: name.padEnd(bytes, '.') }] as unknown as ServiceDetail[], meta: { pagination: { limit: 10, offset: 0, totalCount: 1 } } });
const text = (body: string | Uint8Array | Uint8Array[]) => (typeof body === 'string' ? body : new TextDecoder().decode(Array.isArray(body) ? Buffer.concat(body) : body));

describe('KeptServicePages', () => {
  it('answers a page only for the very source it was made from', () => {
    const kept = new KeptServicePages(8 * 1024 * 1024);
    const p = page('a');
    kept.put('k', source, p, NOW);
    expect(kept.get('k', source)).toBe(p);
    expect(kept.get('k', { ...source, servicesChangedAt: source.servicesChangedAt + 1 })).toBeUndefined();
    expect(kept.get('k', { ...source, postureState: '[]' })).toBeUndefined();
    expect(kept.get('other', source)).toBeUndefined();
    // A stamp never set (no change ever) is a source like any other.
    const q = page('b');
    kept.put('never', { servicesChangedAt: null, postureState: null }, q, NOW);
    expect(kept.get('never', { servicesChangedAt: null, postureState: null })).toBe(q);
  });

  it('keeps no page made within the settling time of its stamp, and drops the one it replaces', () => {
    const kept = new KeptServicePages(8 * 1024 * 1024);
    kept.put('k', source, page('old'), NOW);
    const young = { servicesChangedAt: NOW - SETTLE_MS + 1, postureState: null };
    kept.put('k', young, page('young'), NOW);
    expect(kept.get('k', young)).toBeUndefined();
    expect(kept.get('k', source)).toBeUndefined();
  });

  it('serialises a kept page once, to the same text', () => {
    const kept = new KeptServicePages(8 * 1024 * 1024);
    const p = page('a');
    const expected = JSON.stringify({ data: p.data, meta: p.meta });
    kept.put('k', source, p, NOW);
    expect(text(serialise({ data: kept.get('k', source)!.data, meta: p.meta }))).toBe(expected);
    expect(text(serialise({ data: kept.get('k', source)!.data, meta: p.meta }))).toBe(expected);
  });

  it('stays within its budget, the least recently answered pages going first; a page over the limit is not kept', () => {
    const kept = new KeptServicePages(8 * 1024 * 1024);
    const mib = 1024 * 1024;
    for (const k of ['a', 'b', 'c']) kept.put(k, source, page(k, 3 * mib), NOW);
    // 9 MiB over an 8 MiB budget: the oldest went.
    expect(kept.get('a', source)).toBeUndefined();
    expect(kept.get('b', source)).toBeDefined();
    // `b` answered last, so `c` goes next.
    kept.put('d', source, page('d', 3 * mib), NOW);
    expect(kept.get('c', source)).toBeUndefined();
    expect(kept.get('b', source)).toBeDefined();
    expect(kept.get('d', source)).toBeDefined();
    kept.put('huge', source, page('huge', 5 * mib), NOW);
    expect(kept.get('huge', source)).toBeUndefined();
    expect(kept.get('b', source)).toBeDefined();
  });
});
