import { defineEntity } from '../../crud/entity.js';
import { commonFields, jsonArraySet, type FieldMap } from '../../crud/list-query.js';
import { cas } from '../../db/schema/index.js';
import type { CaCreate } from '../../generated/management-types.js';
import { shortId } from '../../lib/ids.js';

export type CaRow = typeof cas.$inferSelect;

export const DEFAULT_NAME_FORMAT = '[caName]-[commonName]';

export const caFields: FieldMap = {
  ...commonFields(cas),
  name: { type: 'string', sql: cas.name },
  fingerprint: { type: 'string', sql: cas.fingerprint },
  certPem: { type: 'string', sql: cas.certPem },
  isVerified: { type: 'bool', sql: cas.isVerified },
  verificationToken: { type: 'string', sql: cas.verificationToken },
  isAutoCaEnrollmentEnabled: { type: 'bool', sql: cas.isAutoCaEnrollmentEnabled },
  isOttCaEnrollmentEnabled: { type: 'bool', sql: cas.isOttCaEnrollmentEnabled },
  isAuthEnabled: { type: 'bool', sql: cas.isAuthEnabled },
  identityNameFormat: { type: 'string', sql: cas.identityNameFormat },
  identityRoles: jsonArraySet(cas.identityRoles),
};

/** Third-party CAs as the management API writes them; certificate, fingerprint and verification are set by the service. */
export const caEntity = defineEntity<CaCreate>()({
  entity: 'ca',
  collection: 'cas',
  table: cas,
  fields: caFields,
  props: {
    name: { column: 'name', kind: 'name' },
    isAutoCaEnrollmentEnabled: { column: 'isAutoCaEnrollmentEnabled', kind: 'bool' },
    isOttCaEnrollmentEnabled: { column: 'isOttCaEnrollmentEnabled', kind: 'bool' },
    isAuthEnabled: { column: 'isAuthEnabled', kind: 'bool' },
    identityRoles: { column: 'identityRoles', kind: 'attributes' },
    identityNameFormat: { column: 'identityNameFormat', kind: 'string', convert: (v: string) => (v && v.trim() !== '' ? v : DEFAULT_NAME_FORMAT) },
    externalIdClaim: { column: 'externalIdClaim', kind: 'json' },
  },
  unique: [
    { column: 'name', field: 'name' },
    { column: 'fingerprint', field: 'certPem' },
  ],
  newId: shortId,
});

