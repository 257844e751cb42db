import { defineEntity } from '../../crud/entity.js';
import { commonFields, jsonArraySet, linkedSet } from '../../crud/list-query.js';
import { configIdsOfService } from './repo.js';
import { services } from '../../db/schema/index.js';
import type { ServiceCreate } from '../../generated/management-types.js';
import { entityId } from '../../lib/ids.js';

export type ServiceRow = typeof services.$inferSelect;

/** Terminator strategies the controller knows (§4.1); empty means the default. */
export const TERMINATOR_STRATEGIES = ['smartrouting', 'weighted', 'random', 'sticky'] as const;

/** Services (reference model-and-policies §4.1). `configs` is kept in `service_configs` by the service. */
export const serviceEntity = defineEntity<ServiceCreate>()({
  entity: 'service',
  collection: 'services',
  table: services,
  fields: {
    ...commonFields(services),
    name: { type: 'string', sql: services.name },
    roleAttributes: jsonArraySet(services.roleAttributes),
    terminatorStrategy: { type: 'string', sql: services.terminatorStrategy },
    encryptionRequired: { type: 'bool', sql: services.encryptionRequired },
    maxIdleTimeMillis: { type: 'number', sql: services.maxIdleTimeMillis },
    configs: linkedSet(configIdsOfService),
  },
  props: {
    name: { column: 'name', kind: 'name' },
    terminatorStrategy: { column: 'terminatorStrategy', kind: 'string', convert: (v) => (v === '' ? 'smartrouting' : v) },
    maxIdleTimeMillis: { column: 'maxIdleTimeMillis', kind: 'int' },
    encryptionRequired: { column: 'encryptionRequired', kind: 'bool' },
    roleAttributes: { column: 'roleAttributes', kind: 'attributes' },
  },
  unique: [{ column: 'name', field: 'name' }],
  newId: entityId,
});
