import { TOTP, Secret } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { base32Encode, matchRecoveryCode, matchTotp, newRecoveryCodes, newTotpSecret, provisioningUrl } from '../../src/mfa/totp.js';

describe('TOTP on WebCrypto', () => {
  it('reproduces the RFC 6238 SHA-1 test vectors (6-digit truncation)', async () => {
    const secret = base32Encode(new TextEncoder().encode('12345678901234567890'));
    expect(secret).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    // RFC 6238 appendix B, SHA-1: T=59 → 94287082, T=1111111109 → 07081804, T=2000000000 → 69279037.
    expect(await matchTotp(secret, '287082', 59_000)).toBe(1);
    expect(await matchTotp(secret, '081804', 1_111_111_109_000)).toBe(37037036);
    expect(await matchTotp(secret, '279037', 2_000_000_000_000)).toBe(66666666);
  });

  it('accepts codes of the current step ±2 only, as otpauth computes them', async () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{16}$/);
    const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
    const now = 1_700_000_000_000;
    const step = Math.floor(now / 30_000);
    for (let d = -2; d <= 2; d++) expect(await matchTotp(secret, totp.generate({ timestamp: now + d * 30_000 }), now)).toBe(step + d);
    for (const d of [-4, -3, 3, 4]) {
      const code = totp.generate({ timestamp: now + d * 30_000 });
      const inWindow = [-2, -1, 0, 1, 2].some((w) => totp.generate({ timestamp: now + w * 30_000 }) === code);
      if (!inWindow) expect(await matchTotp(secret, code, now)).toBeUndefined();
    }
    for (const bad of ['', '12345', '1234567', 'abcdef', '12345a', ' 12345', '12345678']) expect(await matchTotp(secret, bad, now)).toBeUndefined();
  });

  it('makes 20 distinct-looking 6-character Base32 recovery codes and matches them exactly', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(20);
    for (const c of codes) expect(c).toMatch(/^[A-Z2-7]{6}$/);
    expect(matchRecoveryCode(codes, codes[5])).toBe(codes.indexOf(codes[5]));
    expect(matchRecoveryCode(codes, codes[5].toLowerCase())).toBe(-1);
    expect(matchRecoveryCode(codes, '')).toBe(-1);
  });

  it('builds the provisioning URL with the label as is and the query sorted and encoded', () => {
    expect(provisioningUrl('openziti.io', 'my-laptop', 'JBSWY3DPEHPK3PXP')).toBe('otpauth://totp/openziti.io:my-laptop?issuer=openziti.io&secret=JBSWY3DPEHPK3PXP');
    expect(provisioningUrl('my org', 'x', 'ABC')).toBe('otpauth://totp/my org:x?issuer=my%20org&secret=ABC');
  });
});
