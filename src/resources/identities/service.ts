import { listMeta, resolveListQuery, type ListQueryParams } from '../../crud/list-query.js';
import { createEntity, findEntity, finishedAfterRender, listRelated, resourceService, type CreateHooks, type ListResult, type ResourceService } from '../../crud/service.js';
import type { Deps } from '../../deps.js';
import { fieldError, messageError, notFound } from '../../errors.js';
import { identityEnrollmentRequest, prepareEnrollment } from '../../enrollment/create.js';
import { openEnrollmentMaps } from '../../enrollment/render.js';
import type { IdentityCreate, IdentityDetail, IdentityPatch } from '../../generated/management-types.js';
import { assertOptionalName } from '../../lib/limits.js';
import { entityLinkStatements, entityRemovalStatements } from '../../policy/repo.js';
import { authenticatorEntity } from '../authenticators/entity.js';
import { renderAuthenticator } from '../authenticators/mapper.js';
import { authenticatorExtras, authenticatorsOfIdentity } from '../authenticators/repo.js';
import { edgeRouterExists } from '../edge-routers/repo.js';
import { identityEntity, type IdentityRow } from './entity.js';
import { extrasFromSelected, renderIdentity } from './mapper.js';
import {
  authPolicyExists,
  disableIdentityRow,
  enableIdentityRow,
  identityCascade,
  identityExtras,
  identityListVersions,
  identityRoleFilter,
  keptIdentityExtras,
  listIdentityRoleAttributes,
  missingServiceIds,
  roleAttributeFields,
} from './repo.js';

type IdentityValues = { name?: string; typeId?: unknown; authPolicyId?: string | null; serviceHostingCosts?: Record<string, unknown>; serviceHostingPrecedences?: Record<string, unknown> };

/** API sessions whose last activity is before this are expired: they do not count for `hasApiSession`. */
function liveSince(deps: Deps): number {
  return deps.now() - deps.config.sessionTimeoutSeconds * 1000;
}

const ROUTER_TYPE = 'Router';

/**
 * The identity type on PUT/PATCH (reference §8.1): User, Device, Service and Default all mean Default;
 * Router is refused for other identities, and router identities keep their type and name.
 */
function typeOnUpdate(values: IdentityValues, existing: IdentityRow, requested: string | null | undefined): void {
  if (existing.typeId === ROUTER_TYPE) {
    if (requested && requested !== ROUTER_TYPE) throw fieldError('type', 'may not change type of router identities', requested);
    if (values.name !== undefined && values.name !== existing.name) throw fieldError('name', 'may not change name of router identities', values.name);
    return;
  }
  if (requested === ROUTER_TYPE) throw fieldError('type', 'may not change type to router', requested);
  if (requested) values.typeId = 'Default';
}

/** Referenced entities must exist: the auth policy (404 like the controller's foreign key), hosting-map service ids. */
async function checkReferences(deps: Deps, values: IdentityValues): Promise<void> {
  const policyId = values.authPolicyId;
  if (policyId !== undefined && policyId !== null && !(await authPolicyExists(deps.db, policyId))) throw notFound('authPolicy', policyId);
  const serviceIds = new Set<string>();
  for (const map of [values.serviceHostingCosts, values.serviceHostingPrecedences]) {
    for (const id of Object.keys(map ?? {})) serviceIds.add(id);
  }
  if (serviceIds.size > 0) {
    const missing = await missingServiceIds(deps.db, [...serviceIds]);
    if (missing.length > 0) throw notFound('service', missing[0]);
  }
}

const identityCreateHooks: CreateHooks<typeof identityEntity.table, typeof identityEntity.props, IdentityCreate> = {
  // The requested type is ignored: every identity created through the API is of type Default (§8.1).
  async check(deps, values) {
    assertOptionalName(values.externalId, 'externalId');
    values.typeId = 'Default';
    await checkReferences(deps, values);
  },
  // Policy links follow the identity's id and attributes in the same batch (docs/adr/0006-policy-links.md).
  statements: (deps, id, values, now) => entityLinkStatements(deps.db, 'identity', id, values.roleAttributes ?? [], now),
};

const baseIdentityService = resourceService(identityEntity, {
  extras: (deps) => identityExtras(liveSince(deps)),
  render: (selected, deps) => renderIdentity(selected.row, extrasFromSelected(selected, selected.row.authPolicyId), deps.now()),
  listWhere: (query) => identityRoleFilter(query.roleFilter, query.roleSemantic),
  // The roleFilter and every filter field read only the identities table (docs/adr/0014-identity-list.md).
  keptList: { versions: identityListVersions, extras: keptIdentityExtras, placeholders: (deps) => ({ liveSince: liveSince(deps) }) },
  create: identityCreateHooks,
  update: {
    async check(deps, values, existing, body: IdentityPatch) {
      assertOptionalName(values.externalId, 'externalId');
      typeOnUpdate(values, existing, body?.type);
      await checkReferences(deps, values);
    },
    statements: (deps, existing, values, now) => (values.roleAttributes !== undefined ? entityLinkStatements(deps.db, 'identity', existing.id, values.roleAttributes, now) : []),
  },
  remove: {
    async check(deps, existing) {
      if (existing.isDefaultAdmin) throw messageError('ENTITY_CAN_NOT_BE_DELETED', `cannot delete the default admin identity (id=${existing.id})`);
      // A tunneler-enabled router's identity goes with its router or its tunneler (§8.6, §9.2).
      if (existing.typeId === ROUTER_TYPE && (await edgeRouterExists(deps.db, existing.id))) {
        throw messageError('ENTITY_CAN_NOT_BE_DELETED', `cannot delete router identity ${existing.name} until associated router is deleted`);
      }
    },
    cascade: (deps, existing) => [...identityCascade(deps.db, existing.id), ...entityRemovalStatements(deps.db, 'identity', existing.id, deps.now())],
  },
});

/**
 * The identity service: CRUD plus the enrollment of `POST /identities` (written in the identity's
 * batch, reference auth-and-pki §5.1) and the sealed enrollment JWTs of the `enrollment` map opened
 * after rendering.
 */
export const identityService: ResourceService<IdentityDetail, IdentityCreate, IdentityPatch> = {
  ...baseIdentityService,
  ...finishedAfterRender(baseIdentityService, openEnrollmentMaps),
  async create(deps, body) {
    // The id is chosen first: the enrollment JWT names it as its subject.
    const id = identityEntity.newId();
    const request = identityEnrollmentRequest(deps, id, body?.enrollment);
    const enrollment = request ? await prepareEnrollment(deps, request, true) : undefined;
    return createEntity(deps, { ...identityEntity, newId: () => id }, body, {
      ...identityCreateHooks,
      statements: (d, newId, values, now) => [...(identityCreateHooks.statements?.(d, newId, values, now) ?? []), ...(enrollment ? [enrollment.statement(deps)] : [])],
    });
  },
};

/**
 * `POST /identities/{id}/disable`: disabled from now for `durationMinutes` (0 or less: until enabled);
 * its API sessions end in the same batch.
 */
export async function disableIdentity(deps: Deps, id: string, durationMinutes: number): Promise<void> {
  await findEntity(deps, identityEntity, id);
  const now = deps.now();
  await disableIdentityRow(deps.db, id, now, durationMinutes > 0 ? now + durationMinutes * 60_000 : null);
}

/** `POST /identities/{id}/enable`: clears the disabled period and the failed password attempts. */
export async function enableIdentity(deps: Deps, id: string): Promise<void> {
  await findEntity(deps, identityEntity, id);
  await enableIdentityRow(deps.db, id, deps.now());
}

/**
 * `GET /identity-role-attributes` (reference §3.4): distinct attributes ascending, filter on `id` only;
 * only the filter's own `limit`/`skip`/`sort by` apply, so the whole list is returned by default.
 */
export async function listRoleAttributes(deps: Deps, query: ListQueryParams): Promise<ListResult<string>> {
  const q = resolveListQuery(query, roleAttributeFields, { filterPagingOnly: true });
  const { values, total } = await listIdentityRoleAttributes(deps.db, q);
  return { data: values, meta: listMeta(total, q.limit, q.offset, ['id']) };
}

/** `GET /identities/{id}/authenticators`: the authenticator list restricted to the identity. */
export async function listIdentityAuthenticators(deps: Deps, id: string, query: ListQueryParams) {
  return listRelated(deps, authenticatorEntity, query, {
    where: authenticatorsOfIdentity(id),
    extras: authenticatorExtras(),
    render: (r) => renderAuthenticator(r.row, r.identityName ?? ''),
  });
}
