import { defineEntity } from '../../crud/entity.js';
import { commonFields, jsonArraySet } from '../../crud/list-query.js';
import { postureChecks } from '../../db/schema/index.js';
import type {
  PostureCheckDomainCreate,
  PostureCheckMacAddressCreate,
  PostureCheckMfaCreate,
  PostureCheckOperatingSystemCreate,
  PostureCheckProcessCreate,
  PostureCheckProcessMultiCreate,
} from '../../generated/management-types.js';
import { entityId } from '../../lib/ids.js';

/** A posture check body of any of the six types (the discriminator `typeId` chose the schema it was validated with). */
export type PostureCheckBody =
  | PostureCheckOperatingSystemCreate
  | PostureCheckMacAddressCreate
  | PostureCheckDomainCreate
  | PostureCheckProcessCreate
  | PostureCheckProcessMultiCreate
  | PostureCheckMfaCreate;

/**
 * Posture checks (reference model-and-policies §7.1). The type-specific properties of all six types are
 * declared here; the service keeps only those of the check's own type (src/resources/posture-checks/service.ts).
 * `roleAttributes` is filterable, as on services and identities: v1.6.2 refuses it (not a public field,
 * §1.6), later controllers and the Admin Console's policy forms (`anyOf(roleAttributes) = "x"`) use it
 * (ADR 0001).
 */
export const postureCheckEntity = defineEntity<PostureCheckBody>()({
  entity: 'postureCheck',
  collection: 'posture-checks',
  table: postureChecks,
  fields: {
    ...commonFields(postureChecks),
    name: { type: 'string', sql: postureChecks.name },
    typeId: { type: 'string', sql: postureChecks.typeId },
    roleAttributes: jsonArraySet(postureChecks.roleAttributes),
    promptOnWake: { type: 'bool', sql: postureChecks.promptOnWake },
    promptOnUnlock: { type: 'bool', sql: postureChecks.promptOnUnlock },
  },
  props: {
    name: { column: 'name', kind: 'name' },
    typeId: { column: 'typeId', kind: 'string' },
    roleAttributes: { column: 'roleAttributes', kind: 'attributes' },
    operatingSystems: { column: 'operatingSystems', kind: 'json' },
    macAddresses: { column: 'macAddresses', kind: 'json' },
    domains: { column: 'domains', kind: 'json' },
    process: { column: 'process', kind: 'object' },
    processes: { column: 'processes', kind: 'json' },
    semantic: { column: 'semantic', kind: 'string' },
    // MFA: zero or less means no timeout, stored and rendered as -1 (§7.1).
    timeoutSeconds: { column: 'timeoutSeconds', kind: 'int', convert: (v) => (v > 0 ? v : -1) },
    promptOnWake: { column: 'promptOnWake', kind: 'bool' },
    promptOnUnlock: { column: 'promptOnUnlock', kind: 'bool' },
    ignoreLegacyEndpoints: { column: 'ignoreLegacyEndpoints', kind: 'bool' },
  },
  unique: [{ column: 'name', field: 'name' }],
  newId: entityId,
});
