import { defineEntity } from '../../crud/entity.js';
import { commonFields, constantField } from '../../crud/list-query.js';
import { terminators } from '../../db/schema/index.js';
import { routerNameOfTerminator, serviceNameOfTerminator } from './repo.js';
import type { TerminatorCreate } from '../../generated/management-types.js';
import { entityId } from '../../lib/ids.js';

export type TerminatorRow = typeof terminators.$inferSelect;

/** Terminators (§9.4). `service`, `identity` and `identitySecret` are create-only (set by the service). */
export const terminatorEntity = defineEntity<TerminatorCreate>()({
  entity: 'terminator',
  collection: 'terminators',
  table: terminators,
  // The controller's public symbols (§1.6): the JSON `identity` is `instanceId`; `cost` and `precedence` are
  // not filterable; `service.name` and `router.name` reach through to the named entity. `hostId` and
  // `sourceCtrl` are set only on terminators routers create, so here they are always absent (null).
  fields: {
    ...commonFields(terminators),
    service: { type: 'string', sql: terminators.serviceId },
    router: { type: 'string', sql: terminators.routerId },
    binding: { type: 'string', sql: terminators.binding },
    address: { type: 'string', sql: terminators.address },
    instanceId: { type: 'string', sql: terminators.identity },
    hostId: constantField('string', null),
    sourceCtrl: constantField('string', null),
    'service.name': { type: 'string', sql: serviceNameOfTerminator },
    'router.name': { type: 'string', sql: routerNameOfTerminator },
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
