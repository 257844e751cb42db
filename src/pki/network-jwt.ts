import type { Pki } from './types.js';

/**
 * The network JWT of `GET /network-jwts`: tells a client where the controller is and lets it verify
 * the controller's signing certificate before any per-identity enrollment. No expiry.
 */
export function networkJwt(pki: Pki, apiAddress: string): Promise<string> {
  const iss = `https://${apiAddress}/`;
  return pki.signJwt({ iss, sub: iss, aud: ['openziti-enroller'], jti: crypto.randomUUID(), em: 'network', ctrls: null });
}

export type EnrollmentMethod = 'ott' | 'ottca' | 'updb' | 'erott' | 'trott';

/** Claims of an enrollment JWT, in the controller's order (reference §5.2). */
export function enrollmentClaims(apiAddress: string, subject: string, token: string, method: EnrollmentMethod, expiresAtMs: number, ctrls: string[] | null) {
  return {
    iss: `https://${apiAddress}`,
    sub: subject,
    aud: [''],
    exp: Math.floor(expiresAtMs / 1000),
    jti: token,
    em: method,
    ctrls,
  };
}
