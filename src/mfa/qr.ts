/**
 * A QR code encoder (ISO/IEC 18004) for what the controller needs: byte mode, error correction level M,
 * the smallest version (1–40) that holds the data, the mask with the lowest penalty. Written here rather
 * than taken from a package so that the Workers bundle carries only this (see docs/auth.md, MFA).
 * Returns the module matrix, `true` = dark, without the quiet zone.
 */

/** Level M error-correction blocks per version: [blocks, total codewords, data codewords] per group. */
const BLOCKS_M: readonly (readonly number[])[] = [
  [1, 26, 16], [1, 44, 28], [1, 70, 44], [2, 50, 32], [2, 67, 43], [4, 43, 27], [4, 49, 31], [2, 60, 38, 2, 61, 39],
  [3, 58, 36, 2, 59, 37], [4, 69, 43, 1, 70, 44], [1, 80, 50, 4, 81, 51], [6, 58, 36, 2, 59, 37], [8, 59, 37, 1, 60, 38],
  [4, 64, 40, 5, 65, 41], [5, 65, 41, 5, 66, 42], [7, 73, 45, 3, 74, 46], [10, 74, 46, 1, 75, 47], [9, 69, 43, 4, 70, 44],
  [3, 70, 44, 11, 71, 45], [3, 67, 41, 13, 68, 42], [17, 68, 42], [17, 74, 46], [4, 75, 47, 14, 76, 48], [6, 73, 45, 14, 74, 46],
  [8, 75, 47, 13, 76, 48], [19, 74, 46, 4, 75, 47], [22, 73, 45, 3, 74, 46], [3, 73, 45, 23, 74, 46], [21, 73, 45, 7, 74, 46],
  [19, 75, 47, 10, 76, 48], [2, 74, 46, 29, 75, 47], [10, 74, 46, 23, 75, 47], [14, 74, 46, 21, 75, 47], [14, 74, 46, 23, 75, 47],
  [12, 75, 47, 26, 76, 48], [6, 75, 47, 34, 76, 48], [29, 74, 46, 14, 75, 47], [13, 74, 46, 32, 75, 47], [40, 75, 47, 7, 76, 48],
  [18, 75, 47, 31, 76, 48],
];

/** Level M's two format bits (L = 01, M = 00, Q = 11, H = 10). */
const LEVEL_M = 0;

// GF(256) with the QR polynomial x^8 + x^4 + x^3 + x^2 + 1.
const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i++) {
  EXP[i] = x;
  LOG[x] = i;
  x = (x << 1) ^ (x & 0x80 ? 0x11d : 0);
}
for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
const mul = (a: number, b: number) => (a === 0 || b === 0 ? 0 : EXP[LOG[a] + LOG[b]]);

/** Reed–Solomon error-correction codewords of one block. */
function errorCorrection(data: Uint8Array, length: number): Uint8Array {
  // Generator polynomial (x - α^0)…(x - α^(n-1)), highest degree first, leading 1 implied.
  let gen = [1];
  for (let i = 0; i < length; i++) {
    const next = new Array<number>(gen.length + 1).fill(0);
    gen.forEach((g, j) => {
      next[j] ^= g;
      next[j + 1] ^= mul(g, EXP[i]);
    });
    gen = next;
  }
  const rem = new Uint8Array(length);
  for (const byte of data) {
    const factor = byte ^ rem[0];
    rem.copyWithin(0, 1);
    rem[length - 1] = 0;
    for (let i = 0; i < length; i++) rem[i] ^= mul(gen[i + 1], factor);
  }
  return rem;
}

function groups(version: number): { count: number; total: number; data: number }[] {
  const row = BLOCKS_M[version - 1];
  const out = [];
  for (let i = 0; i < row.length; i += 3) out.push({ count: row[i], total: row[i + 1], data: row[i + 2] });
  return out;
}

const dataCapacity = (version: number) => groups(version).reduce((n, g) => n + g.count * g.data, 0);

/** The codewords of the data, error correction included, interleaved block by block. */
function codewords(bytes: Uint8Array, version: number): Uint8Array {
  const capacity = dataCapacity(version);
  const bits: number[] = [];
  const push = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1);
  };
  push(0b0100, 4); // byte mode
  push(bytes.length, version < 10 ? 8 : 16);
  for (const b of bytes) push(b, 8);
  push(0, Math.min(4, capacity * 8 - bits.length)); // terminator
  push(0, (8 - (bits.length % 8)) % 8);
  const data = new Uint8Array(capacity);
  for (let i = 0; i < bits.length / 8; i++) for (let j = 0; j < 8; j++) data[i] = (data[i] << 1) | bits[i * 8 + j];
  for (let i = bits.length / 8, pad = 0xec; i < capacity; i++, pad ^= 0xec ^ 0x11) data[i] = pad;

  const blocks: { data: Uint8Array; ec: Uint8Array }[] = [];
  let at = 0;
  for (const g of groups(version)) {
    for (let k = 0; k < g.count; k++) {
      const block = data.subarray(at, (at += g.data));
      blocks.push({ data: block, ec: errorCorrection(block, g.total - g.data) });
    }
  }
  const out: number[] = [];
  const longest = Math.max(...blocks.map((b) => b.data.length));
  for (let i = 0; i < longest; i++) for (const b of blocks) if (i < b.data.length) out.push(b.data[i]);
  for (let i = 0; i < blocks[0].ec.length; i++) for (const b of blocks) out.push(b.ec[i]);
  return Uint8Array.from(out);
}

function alignmentPositions(version: number, size: number): number[] {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const step = Math.floor((version * 8 + count * 3 + 5) / (count * 4 - 4)) * 2;
  const positions = [6];
  for (let pos = size - 7; positions.length < count; pos -= step) positions.splice(1, 0, pos);
  return positions;
}

/** The BCH check bits of `value` (appended as its `degree` low bits) for generator `poly`. */
function bch(value: number, poly: number, degree: number): number {
  let rem = value;
  for (let i = 0; i < degree; i++) rem = (rem << 1) ^ ((rem >>> (degree - 1)) & 1 ? poly : 0);
  return rem & ((1 << degree) - 1);
}

const MASKS: ((r: number, c: number) => boolean)[] = [
  (r, c) => (r + c) % 2 === 0,
  (r) => r % 2 === 0,
  (_r, c) => c % 3 === 0,
  (r, c) => (r + c) % 3 === 0,
  (r, c) => (Math.floor(r / 2) + Math.floor(c / 3)) % 2 === 0,
  (r, c) => ((r * c) % 2) + ((r * c) % 3) === 0,
  (r, c) => (((r * c) % 2) + ((r * c) % 3)) % 2 === 0,
  (r, c) => (((r + c) % 2) + ((r * c) % 3)) % 2 === 0,
];

class Matrix {
  readonly dark: boolean[][];
  readonly fixed: boolean[][];
  constructor(readonly size: number) {
    this.dark = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
    this.fixed = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  }
  /** A function module at column x, row y. */
  set(x: number, y: number, dark: boolean): void {
    this.dark[y][x] = dark;
    this.fixed[y][x] = true;
  }
}

function functionPatterns(m: Matrix, version: number): void {
  const { size } = m;
  for (let i = 0; i < size; i++) {
    m.set(6, i, i % 2 === 0);
    m.set(i, 6, i % 2 === 0);
  }
  // Finders with their separators.
  for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]]) {
    for (let dy = -4; dy <= 4; dy++) {
      for (let dx = -4; dx <= 4; dx++) {
        const x = cx + dx;
        const y = cy + dy;
        if (x < 0 || y < 0 || x >= size || y >= size) continue;
        const d = Math.max(Math.abs(dx), Math.abs(dy));
        m.set(x, y, d !== 2 && d !== 4);
      }
    }
  }
  const align = alignmentPositions(version, size);
  const last = align.length - 1;
  align.forEach((cx, i) =>
    align.forEach((cy, j) => {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
      for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) m.set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
    }),
  );
  formatBits(m, 0); // reserves the areas; drawn again with the chosen mask
  if (version >= 7) {
    const bits = (version << 12) | bch(version, 0x1f25, 12);
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >>> i) & 1) === 1;
      const a = size - 11 + (i % 3);
      const b = Math.floor(i / 3);
      m.set(a, b, dark);
      m.set(b, a, dark);
    }
  }
}

function formatBits(m: Matrix, mask: number): void {
  const { size } = m;
  const data = (LEVEL_M << 3) | mask;
  const bits = ((data << 10) | bch(data, 0x537, 10)) ^ 0x5412;
  const bit = (i: number) => ((bits >>> i) & 1) === 1;
  for (let i = 0; i <= 5; i++) m.set(8, i, bit(i));
  m.set(8, 7, bit(6));
  m.set(8, 8, bit(7));
  m.set(7, 8, bit(8));
  for (let i = 9; i < 15; i++) m.set(14 - i, 8, bit(i));
  for (let i = 0; i < 8; i++) m.set(size - 1 - i, 8, bit(i));
  for (let i = 8; i < 15; i++) m.set(8, size - 15 + i, bit(i));
  m.set(8, size - 8, true); // the dark module
}

function placeData(m: Matrix, data: Uint8Array): void {
  const { size } = m;
  let i = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    for (let vert = 0; vert < size; vert++) {
      for (let j = 0; j < 2; j++) {
        const x = right - j;
        const upward = ((right + 1) & 2) === 0;
        const y = upward ? size - 1 - vert : vert;
        if (m.fixed[y][x]) continue;
        // Remainder bits past the last codeword stay light.
        m.dark[y][x] = i < data.length * 8 && ((data[i >>> 3] >>> (7 - (i & 7))) & 1) === 1;
        i++;
      }
    }
  }
}

function applyMask(m: Matrix, mask: number): void {
  const f = MASKS[mask];
  for (let y = 0; y < m.size; y++) for (let x = 0; x < m.size; x++) if (!m.fixed[y][x] && f(y, x)) m.dark[y][x] = !m.dark[y][x];
}

/** The standard penalty (runs, 2×2 blocks, finder-like patterns, dark balance): lower scans better. */
function penalty(dark: boolean[][]): number {
  const size = dark.length;
  let score = 0;
  const lines: boolean[][] = [...dark, ...dark.map((_, x) => dark.map((row) => row[x]))];
  for (const line of lines) {
    let run = 1;
    for (let i = 1; i <= size; i++) {
      if (i < size && line[i] === line[i - 1]) run++;
      else {
        if (run >= 5) score += run - 2;
        run = 1;
      }
    }
    const text = line.map((d) => (d ? '1' : '0')).join('');
    for (const p of ['10111010000', '00001011101']) for (let at = text.indexOf(p); at >= 0; at = text.indexOf(p, at + 1)) score += 40;
  }
  let darkCount = 0;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (dark[y][x]) darkCount++;
      if (y + 1 < size && x + 1 < size) {
        const c = dark[y][x];
        if (dark[y][x + 1] === c && dark[y + 1][x] === c && dark[y + 1][x + 1] === c) score += 3;
      }
    }
  }
  score += Math.floor(Math.abs((darkCount * 100) / (size * size) - 50) / 5) * 10;
  return score;
}

/** `mask` forces one of the eight masks (tests); otherwise the one with the lowest penalty is used. */
export function qrMatrix(bytes: Uint8Array, mask?: number): boolean[][] {
  let version = 1;
  while (4 + (version < 10 ? 8 : 16) + bytes.length * 8 > dataCapacity(version) * 8) {
    if (++version > 40) throw new Error('data too long for a QR code');
  }
  const data = codewords(bytes, version);
  let best: { score: number; dark: boolean[][] } | undefined;
  for (const candidate of mask === undefined ? [0, 1, 2, 3, 4, 5, 6, 7] : [mask]) {
    const m = new Matrix(version * 4 + 17);
    functionPatterns(m, version);
    placeData(m, data);
    applyMask(m, candidate);
    formatBits(m, candidate);
    const score = mask === undefined ? penalty(m.dark) : 0;
    if (!best || score < best.score) best = { score, dark: m.dark };
  }
  return best!.dark;
}
