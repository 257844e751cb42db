import jsQR from 'jsqr';
import qrcode from 'qrcode-generator';
import { describe, expect, it } from 'vitest';
import { qrMatrix } from '../../src/mfa/qr.js';
import { qrCodePng } from '../../src/mfa/qr-png.js';

/** Deterministic pseudo-random printable text (so a failure reproduces). */
function text(length: number, seed: number): string {
  let x = seed;
  let s = '';
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    s += String.fromCharCode(33 + (x % 94));
  }
  return s;
}

async function decodePng(png: Uint8Array): Promise<string | undefined> {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  const idat: Uint8Array[] = [];
  for (let at = 8; at < png.length; ) {
    const length = view.getUint32(at);
    if (String.fromCharCode(...png.subarray(at + 4, at + 8)) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = new Uint8Array(await new Response(new Blob(idat as Uint8Array<ArrayBuffer>[]).stream().pipeThrough(new DecompressionStream('deflate'))).arrayBuffer());
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const v = raw[y * (width + 1) + 1 + x];
      rgba.set([v, v, v, 255], (y * width + x) * 4);
    }
  }
  expect([width, height]).toEqual([256, 256]);
  return jsQR(rgba, width, height)?.data;
}

describe('QR encoder', () => {
  it('matches an independent encoder module for module (same version, same mask) across versions 1–27', () => {
    for (let length = 1, seed = 1; length < 900; length += 13, seed++) {
      const data = text(length, seed);
      const other = qrcode(0, 'M');
      other.addData(data, 'Byte');
      other.make();
      const size = other.getModuleCount();
      const candidates = [0, 1, 2, 3, 4, 5, 6, 7].map((mask) => qrMatrix(new TextEncoder().encode(data), mask));
      expect(candidates[0].length, `length ${length}`).toBe(size);
      // The mask choice may differ (penalty details); everything else must be identical under one of the eight.
      const same = candidates.some((m) => m.every((row, r) => row.every((dark, c) => dark === other.isDark(r, c))));
      expect(same, `length ${length}`).toBe(true);
    }
  });

  it('renders 256×256 PNGs that a scanner decodes, from a short URL to long identity names', async () => {
    for (const length of [1, 17, 60, 120, 250, 400, 600]) {
      const data = `otpauth://totp/openziti.io:${text(length, length)}?issuer=openziti.io&secret=JBSWY3DPEHPK3PXP`;
      expect(await decodePng(await qrCodePng(data)), `length ${length}`).toBe(data);
    }
    const unicode = 'otpauth://totp/openziti.io:laptop-Łódź-東京?issuer=openziti.io&secret=JBSWY3DPEHPK3PXP';
    expect(await decodePng(await qrCodePng(unicode))).toBe(unicode);
  });
});
