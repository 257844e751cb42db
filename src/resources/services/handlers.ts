import { handlers, type ClientOperations, type ManagementOperations } from '../../http/handler.js';
import type { RequestSession } from '../../http/session.js';
import { readJson } from '../../lib/json.js';
import { listRoleAttributes } from '../../policy/service.js';
import { serviceEntity } from './entity.js';
import { serviceEdgeRouters } from '../sessions/service.js';
import { listServiceTerminators } from '../terminators/service.js';
import { listConfigServices, serviceService as service, type ServiceCaller } from './service.js';
import { extend } from '../../lib/objects.js';

/** Management `/services`, `/service-role-attributes`, `/configs/{id}/services` (admin). */
export const serviceHandlers = handlers<ManagementOperations>()({
  /**
   * Every service, rendered for the caller; with `asIdentity` (id or name, undeclared by the spec) as that
   * identity sees them, visibility following its admin flag. `roleFilter` makes it a plain listing (§3.5, §4.2).
   */
  async listServices({ svc, list, query, caller, undeclaredQuery, reply }) {
    const asIdentity = undeclaredQuery('asIdentity');
    if (asIdentity && !(query.roleFilter && query.roleFilter.length > 0)) {
      const who = await service.viewer(svc.deps, asIdentity);
      return reply.list(await service.listForCaller(svc.deps, list, query, extend(who, { apiSessionId: '', configTypes: query.configTypes })));
    }
    return reply.list(await service.list(svc.deps, list, query, { identityId: caller.identity.id, apiSessionId: caller.apiSession.id, configTypes: query.configTypes }));
  },
  detailService: async ({ svc, params, caller, reply }) => reply.ok(await service.detail(svc.deps, params.id, { identityId: caller.identity.id, apiSessionId: caller.apiSession.id })),
  createService: async ({ svc, body, reply }) => reply.created(await service.create(svc.deps, body), serviceEntity),
  updateService: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchService: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteService: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
  listServiceRoleAttributes: async ({ svc, list, reply }) => reply.list(await listRoleAttributes(svc.deps, 'service', list)),
  listConfigServices: async ({ svc, params, list, caller, reply }) => reply.list(await listConfigServices(svc.deps, params.id, list, { identityId: caller.identity.id })),
});

/** The caller's view of services (§4.2): config types from the query, else those of the API session (§4.3). */
export function serviceCaller(caller: RequestSession, configTypes?: readonly string[]): ServiceCaller {
  return { identityId: caller.identity.id, apiSessionId: caller.apiSession.id, isAdmin: caller.isAdmin, configTypes: configTypes && configTypes.length > 0 ? configTypes : readJson<string[]>(caller.apiSession.configTypes, []), ridden: caller.ridden };
}

/** Client `/services`: what the caller may dial or bind (admins: everything), and the admin writes. */
export const clientServiceHandlers = handlers<ClientOperations>()({
  listServices: async ({ svc, list, query, caller, reply }) => reply.list(await service.listForCaller(svc.deps, list, query, serviceCaller(caller, query.configTypes))),
  // The detail always uses the API session's config types (§4.3).
  detailService: async ({ svc, params, caller, reply }) => reply.ok(await service.detailForCaller(svc.deps, params.id, serviceCaller(caller))),
  updateService: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'update'), reply.empty()),
  patchService: async ({ svc, params, body, reply }) => (await service.update(svc.deps, params.id, body, 'patch'), reply.empty()),
  deleteService: async ({ svc, params, reply }) => (await service.remove(svc.deps, params.id), reply.empty()),
  listServiceEdgeRouters: async ({ svc, params, headers, caller, reply }) => reply.ok(await serviceEdgeRouters(svc.deps, serviceCaller(caller), params.id, headers['session-token'])),
  async listServiceTerminators({ svc, params, list, caller, reply }) {
    await service.detailForCaller(svc.deps, params.id, serviceCaller(caller));
    const page = await listServiceTerminators(svc.deps, params.id, list);
    return reply.list({ data: page.data.map((t) => ({ id: t.id, createdAt: t.createdAt, updatedAt: t.updatedAt, tags: t.tags, _links: t._links, serviceId: t.serviceId, service: t.service, routerId: t.routerId, identity: t.identity })), meta: page.meta });
  },
});
