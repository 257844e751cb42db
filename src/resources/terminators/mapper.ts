import { entityRef, links } from '../../crud/render.js';
import { readJson } from '../../lib/json.js';
import { iso } from '../../lib/time.js';
import type { TerminatorDetail, TerminatorPrecedence } from '../../generated/management-types.js';
import type { TerminatorRow } from './entity.js';

/** The terminator detail; the router's entityRef points at transit-routers, as the controller's does (§9.4). */
export function renderTerminator(t: TerminatorRow, serviceName: string, routerName: string): TerminatorDetail {
  return {
    id: t.id,
    createdAt: iso(t.createdAt),
    updatedAt: iso(t.updatedAt),
    tags: readJson<Record<string, unknown>>(t.tags, {}),
    _links: links(`./terminators/${t.id}`),
    serviceId: t.serviceId,
    service: entityRef('services', t.serviceId, serviceName),
    routerId: t.routerId,
    router: entityRef('transit-routers', t.routerId, routerName),
    binding: t.binding,
    address: t.address,
    identity: t.identity,
    cost: t.cost,
    // No router reports load here, so the dynamic cost is the static one.
    dynamicCost: t.cost,
    precedence: t.precedence as TerminatorPrecedence,
  };
}
