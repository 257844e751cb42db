import type { ListQueryParams } from '../../crud/list-query.js';
import { listRelated, resourceService } from '../../crud/service.js';
import type { Deps } from '../../deps.js';
import { notFound } from '../../errors.js';
import type { TerminatorCreate } from '../../generated/management-types.js';
import { terminatorEntity } from './entity.js';
import { renderTerminator } from './mapper.js';
import { routerExists, serviceExists, terminatorExtras, terminatorsOfServiceWhere } from './repo.js';

/** `binding` defaults from the address: `udp:` addresses bind `udp`, others `transport` (§9.4). */
function defaultBinding(values: { binding?: string; address?: string }): void {
  if (values.binding === '' || values.binding === undefined) values.binding = values.address?.startsWith('udp:') ? 'udp' : 'transport';
}

async function checkRouter(deps: Deps, routerId: string | undefined): Promise<void> {
  if (routerId !== undefined && !(await routerExists(deps.db, routerId))) throw notFound('router', routerId);
}

export const terminatorService = resourceService(terminatorEntity, {
  extras: () => terminatorExtras(),
  render: (r) => renderTerminator(r.row, r.serviceName ?? '', r.routerName ?? ''),
  create: {
    async check(deps, values, body: TerminatorCreate) {
      if (!(await serviceExists(deps.db, body.service))) throw notFound('service', body.service);
      await checkRouter(deps, values.routerId);
      defaultBinding(values);
      Object.assign(values, { serviceId: body.service, identity: body.identity ?? '', identitySecret: body.identitySecret ?? null });
    },
  },
  update: {
    // `service`, `identity` and `identitySecret` are create-only: they are not properties, so never written.
    async check(deps, values, existing) {
      await checkRouter(deps, values.routerId);
      if (values.binding === '') values.binding = (values.address ?? existing.address).startsWith('udp:') ? 'udp' : 'transport';
    },
  },
});

/** `GET /services/{id}/terminators`. */
export function listServiceTerminators(deps: Deps, serviceId: string, query: ListQueryParams) {
  return listRelated(deps, terminatorEntity, query, { where: terminatorsOfServiceWhere(serviceId), extras: terminatorExtras(), render: (r) => renderTerminator(r.row, r.serviceName ?? '', r.routerName ?? '') });
}
