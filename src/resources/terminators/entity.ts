import { defineEntity } from '../../crud/entity.js';
import { commonFields } from '../../crud/list-query.js';
import { terminators } from '../../db/schema/index.js';
import type { TerminatorCreate } from '../../generated/management-types.js';
import { entityId } from '../../lib/ids.js';

export type TerminatorRow = typeof terminators.$inferSelect;

/** Terminators (§9.4). `service`, `identity` and `identitySecret` are create-only (set by the service). */
export const terminatorEntity = defineEntity<TerminatorCreate>()({
  entity: 'terminator',
  collection: 'terminators',
  table: terminators,
  fields: {
    ...commonFields(terminators),
    service: { type: 'string', sql: terminators.serviceId },
    router: { type: 'string', sql: terminators.routerId },
    binding: { type: 'string', sql: terminators.binding },
    address: { type: 'string', sql: terminators.address },
    identity: { type: 'string', sql: terminators.identity },
    cost: { type: 'number', sql: terminators.cost },
    precedence: { type: 'string', sql: terminators.precedence },
  },
  props: {
    router: { column: 'routerId', kind: 'string' },
    binding: { column: 'binding', kind: 'string' },
    address: { column: 'address', kind: 'string' },
    cost: { column: 'cost', kind: 'int' },
    precedence: { column: 'precedence', kind: 'string', zero: 'default' },
  },
  newId: entityId,
  protectSystem: { update: true },
});
