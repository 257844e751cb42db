import type { Pki } from './types.js';

/**
 * `iss` is the origin clients reach the controller at: pass `config.apiOrigin` (scheme included, so
 * that `http` under `wrangler dev` is told truthfully). A bare host:port is taken as HTTPS.
 */
function origin(apiOrigin: string): string {
  return apiOrigin.includes('://') ? apiOrigin : `https://${apiOrigin}`;
}

/**
 * The network JWT of `GET /network-jwts`: tells a client where the controller is and lets it verify
 * the controller's signing certificate before any per-identity enrollment. No expiry.
 */
export function networkJwt(pki: Pki, apiOrigin: string): Promise<string> {
  const iss = `${origin(apiOrigin)}/`;
  return pki.signJwt({ iss, sub: iss, aud: ['openziti-enroller'], jti: crypto.randomUUID(), em: 'network', ctrls: null });
}

export type EnrollmentMethod = 'ott' | 'ottca' | 'updb' | 'erott' | 'trott';

/** Claims of an enrollment JWT, in the controller's order (reference §5.2). */
export function enrollmentClaims(apiOrigin: string, subject: string, token: string, method: EnrollmentMethod, expiresAtMs: number, ctrls: string[] | null) {
  return {
    iss: origin(apiOrigin),
    sub: subject,
    aud: [''],
    exp: Math.floor(expiresAtMs / 1000),
    jti: token,
    em: method,
    ctrls,
  };
}
