import { qrMatrix } from './qr.js';

/**
 * The QR code of a provisioning URL as a PNG (reference auth-and-pki §4.1: 256×256, error correction M),
 * in pure JavaScript so that it runs on Workers: the matrix from ./qr.ts, the PNG written here (8-bit
 * greyscale, zlib-compressed by the platform's CompressionStream).
 */
const SIZE = 256;
const QUIET_ZONE = 4;

export async function qrCodePng(text: string): Promise<Uint8Array> {
  const matrix = qrMatrix(new TextEncoder().encode(text));
  const modules = matrix.length;
  // Whole pixels per module (sharp edges for scanners), centred; the rest is extra quiet zone.
  const scale = Math.floor(SIZE / (modules + 2 * QUIET_ZONE));
  if (scale < 1) throw new Error('text too long for a 256-pixel QR code');
  const offset = Math.floor((SIZE - modules * scale) / 2);
  // One filter byte (0 = none) before every row.
  const raw = new Uint8Array(SIZE * (SIZE + 1)).fill(255);
  for (let y = 0; y < SIZE; y++) {
    raw[y * (SIZE + 1)] = 0;
    const row = Math.floor((y - offset) / scale);
    if (y < offset || row >= modules) continue;
    for (let m = 0; m < modules; m++) {
      if (!matrix[row][m]) continue;
      const start = y * (SIZE + 1) + 1 + offset + m * scale;
      raw.fill(0, start, start + scale);
    }
  }
  return png(SIZE, SIZE, await zlib(raw));
}

async function zlib(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function png(width: number, height: number, idat: Uint8Array): Uint8Array {
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 0, 0, 0, 0], 8); // bit depth 8, greyscale, deflate, adaptive filtering, no interlace
  const parts = [new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', idat), chunk('IEND', new Uint8Array(0))];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

let crcTable: Uint32Array | undefined;

/** CRC-32 (ISO 3309, as PNG uses it) over the chunk type and data. */
function crc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
