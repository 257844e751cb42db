import { links } from '../../crud/render.js';
import { readJson } from '../../lib/json.js';
import { iso } from '../../lib/time.js';
import type { DetailMfa, DetailMfaRecoveryCodes } from '../../generated/management-types.js';
import type { MfaRow } from './repo.js';

const SELF = './current-identity/mfa';

/**
 * `detailMfa` (reference auth-and-pki §4.1): the provisioning URL and the recovery codes only while
 * unverified (`secrets` given), with the verify and QR links then and the recovery-codes link after.
 */
export function renderMfa(row: MfaRow, secrets: { provisioningUrl: string; recoveryCodes: string[] } | undefined): DetailMfa {
  const nested: Record<string, string> = { 'current-identity': './current-identity' };
  if (row.isVerified) nested['recovery-codes'] = `${SELF}/recovery-codes`;
  else Object.assign(nested, { verify: `${SELF}/verify`, qr: `${SELF}/qr-code` });
  return {
    id: row.id,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    tags: readJson<Record<string, unknown>>(row.tags, {}),
    _links: links(SELF, nested),
    isVerified: row.isVerified,
    ...(secrets && !row.isVerified ? secrets : {}),
  };
}

export function renderRecoveryCodes(row: MfaRow, recoveryCodes: string[]): DetailMfaRecoveryCodes {
  return {
    id: row.id,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    tags: readJson<Record<string, unknown>>(row.tags, {}),
    _links: links(SELF),
    recoveryCodes,
  };
}

/** The 201 of an enrolment: its id and `./current-identity/mfa` (there is one per identity). */
export function renderCreatedMfa(id: string) {
  return { data: { id, _links: { self: { href: SELF } } }, meta: {} };
}
