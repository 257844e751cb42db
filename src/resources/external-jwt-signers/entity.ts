import { defineEntity } from '../../crud/entity.js';
import { commonFields } from '../../crud/list-query.js';
import { externalJwtSigners } from '../../db/schema/index.js';
import type { ExternalJwtSignerCreate } from '../../generated/management-types.js';
import { shortId } from '../../lib/ids.js';

export type ExternalJwtSignerRow = typeof externalJwtSigners.$inferSelect;

const t = externalJwtSigners;

/** External JWT signers (reference auth-and-pki §8.1). */
export const externalJwtSignerEntity = defineEntity<ExternalJwtSignerCreate>()({
  entity: 'externalJwtSigner',
  collection: 'external-jwt-signers',
  table: t,
  fields: {
    ...commonFields(t),
    name: { type: 'string', sql: t.name },
    enabled: { type: 'bool', sql: t.enabled },
    issuer: { type: 'string', sql: t.issuer },
    audience: { type: 'string', sql: t.audience },
    kid: { type: 'string', sql: t.kid },
    jwksEndpoint: { type: 'string', sql: t.jwksEndpoint },
    claimsProperty: { type: 'string', sql: t.claimsProperty },
    useExternalId: { type: 'bool', sql: t.useExternalId },
    externalAuthUrl: { type: 'string', sql: t.externalAuthUrl },
    clientId: { type: 'string', sql: t.clientId },
    targetToken: { type: 'string', sql: t.targetToken },
    fingerprint: { type: 'string', sql: t.fingerprint },
    commonName: { type: 'string', sql: t.commonName },
    notBefore: { type: 'datetime', sql: t.notBefore },
    notAfter: { type: 'datetime', sql: t.notAfter },
  },
  props: {
    name: { column: 'name', kind: 'name' },
    enabled: { column: 'enabled', kind: 'bool' },
    issuer: { column: 'issuer', kind: 'string' },
    audience: { column: 'audience', kind: 'string' },
    certPem: { column: 'certPem', kind: 'nullableString' },
    jwksEndpoint: { column: 'jwksEndpoint', kind: 'nullableString' },
    kid: { column: 'kid', kind: 'nullableString' },
    // Blank means the default claim, `sub`.
    claimsProperty: { column: 'claimsProperty', kind: 'string', zero: 'sub', convert: (v) => (v.trim() === '' ? 'sub' : v) },
    useExternalId: { column: 'useExternalId', kind: 'bool' },
    externalAuthUrl: { column: 'externalAuthUrl', kind: 'nullableString' },
    clientId: { column: 'clientId', kind: 'nullableString' },
    scopes: { column: 'scopes', kind: 'json', zero: [] },
    // Null or empty means ACCESS.
    targetToken: { column: 'targetToken', kind: 'string', zero: 'ACCESS', convert: (v) => v || 'ACCESS' },
  },
  unique: [
    { column: 'name', field: 'name' },
    { column: 'issuer', field: 'issuer' },
    { column: 'kid', field: 'kid' },
    { column: 'fingerprint', field: 'certPem' },
  ],
  newId: shortId,
});
