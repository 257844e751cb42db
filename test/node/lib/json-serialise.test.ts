import { describe, expect, it } from 'vitest';
import { serialise, serialisedNow, serialisedOnce } from '../../../src/lib/json.js';

const text = (body: string | Uint8Array | Uint8Array[]) => (typeof body === 'string' ? body : new TextDecoder().decode(Array.isArray(body) ? Buffer.concat(body) : body));

/** A plain deep copy: the value as JSON.stringify would see it without any marks. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('serialise', () => {
  it('writes exactly what JSON.stringify writes for the same values, marked or not, nested, shared and repeated', () => {
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 200; round++) {
      const entries = Array.from({ length: 1 + Math.floor(next() * 6) }, (_, i) => ({ policyId: `p${round}-${i}`, isPassing: next() < 0.5, queries: next() < 0.5 ? [] : [{ id: 'q', note: 'é ✓ \u2028 "quoted" \\ \uE000' }] }));
      const unmarked = plain(entries);
      for (const e of entries) if (next() < 0.7) serialisedOnce(e);
      const lists = Array.from({ length: 1 + Math.floor(next() * 4) }, () => entries.filter(() => next() < 0.6));
      for (const l of lists) if (next() < 0.7) serialisedOnce(l);
      const page = { data: Array.from({ length: Math.floor(next() * 30) }, (_, i) => ({ id: `s${i}`, access: lists[i % lists.length], tags: {} })), meta: { n: 1 } };
      expect(text(serialise(page)), `round ${round}`).toBe(JSON.stringify(plain(page)));
      expect(plain(entries), `round ${round}: the marked values are unchanged`).toEqual(unmarked);
    }
  });

  it('writes marked values as themselves outside serialise, and text when nothing is marked', () => {
    const list = serialisedOnce([{ a: 1 }, { b: [2, 3] }]);
    expect(Array.isArray(list)).toBe(true);
    expect(JSON.stringify({ list })).toBe('{"list":[{"a":1},{"b":[2,3]}]}');
    expect(serialise({ x: 'plain' })).toBe('{"x":"plain"}');
    expect(text(serialise({ list, again: list }))).toBe('{"list":[{"a":1},{"b":[2,3]}],"again":[{"a":1},{"b":[2,3]}]}');
  });

  it('writes ASCII text into one buffer and wider text (names, config data) through the chunked path, the same bytes', () => {
    const list = serialisedOnce([{ q: 'é' }]);
    for (const name of ['plain', 'naïve ✓ 名前', '\u2028']) {
      const page = { data: [{ name, list }, { name: `${name}-2`, list }], meta: {} };
      const body = serialise(page);
      expect(body).toBeInstanceOf(Uint8Array);
      expect(text(body)).toBe(JSON.stringify(plain(page)));
      expect((body as Uint8Array).byteLength).toBe(new TextEncoder().encode(JSON.stringify(plain(page))).byteLength);
    }
  });

  it('gives a large answer of a few pieces as the pieces, the marked value\'s own bytes among them', () => {
    const page = serialisedNow(Array.from({ length: 3000 }, (_, i) => ({ id: `s${i}`, name: 'é'.repeat(i % 3) + 'x'.repeat(100) }))).value;
    const envelope = { data: page, meta: { pagination: { limit: 3000, offset: 0, totalCount: 3000 } } };
    const first = serialise(envelope);
    const second = serialise(envelope);
    expect(Array.isArray(first) && Array.isArray(second)).toBe(true);
    expect(text(first)).toBe(JSON.stringify(plain(envelope)));
    // The page's bytes are shared by both answers, not copied.
    expect((first as Uint8Array[]).find((b) => b.length > 100_000)).toBe((second as Uint8Array[]).find((b) => b.length > 100_000));
    // A small answer stays one piece.
    expect(Array.isArray(serialise({ data: serialisedNow([{ id: 'a' }]).value }))).toBe(false);
  });

  it('leaves stored strings that look like markers alone (they cannot know the nonce)', () => {
    const list = serialisedOnce(['real']);
    const forged = ['\uE0000', '\uE000deadbeefdeadbeef0', '"\uE000'];
    const body = text(serialise({ forged, list }));
    expect(JSON.parse(body)).toEqual({ forged, list: ['real'] });
  });
});
