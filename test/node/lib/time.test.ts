import { describe, expect, it } from 'vitest';
import { iso } from '../../../src/lib/time.js';

describe('iso', () => {
  it('renders exactly as toISOString, for random instants and every boundary, in any order', () => {
    let seed = 12345;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const samples: number[] = [0, 1, 999, 1000, 59_999, 60_000, 3_599_999, 3_600_000, 86_399_999, 86_400_000, 951_782_400_000, 253_402_300_799_999, 253_402_300_800_000, -1, -86_400_001, 1.5, 8.64e15, -8.64e15];
    for (let i = 0; i < 20_000; i++) samples.push(Math.floor(next() * 4_102_444_800_000));
    // Runs of nearby instants exercise the kept day prefix across midnight.
    for (let i = 0; i < 2_000; i++) samples.push(1_795_478_399_000 + i * 7);
    for (const ms of samples) expect(iso(ms), String(ms)).toBe(new Date(ms).toISOString());
  });
  it('keeps null and undefined as null', () => {
    expect(iso(null)).toBeNull();
    expect(iso(undefined)).toBeNull();
  });
});
