import { listRelated, resourceService } from '../../crud/service.js';
import type { ListQueryParams } from '../../crud/list-query.js';
import type { Deps } from '../../deps.js';
import { ApiError, causeValue, fieldError } from '../../errors.js';
import type { ConfigCreate } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import { firstSchemaProblem, isEmptySchema, jsonSchemaValidator } from '../../lib/json-schema.js';
import { affectedIdentities, markServicesChanged } from '../../policy/service-updates-repo.js';
import { configEntity } from './entity.js';
import { renderConfig } from './mapper.js';
import { detachConfig, overrideUsing } from '../services/repo.js';
import { configExtras, configsOfType, configTypeSchema } from './repo.js';

/** `data` must satisfy the type's schema on every write; the first problem is the 400's cause (§5.2). */
async function checkData(deps: Deps, configTypeId: string, data: Record<string, unknown> | undefined): Promise<void> {
  if (data === undefined) return;
  const schemaText = await configTypeSchema(deps.db, configTypeId);
  const schema = readJson<Record<string, unknown>>(schemaText, {});
  if (isEmptySchema(schema)) return;
  const problem = firstSchemaProblem(jsonSchemaValidator(schema), data);
  if (problem) throw new ApiError('COULD_NOT_VALIDATE', { field: problem.path, reason: `${problem.path}: ${problem.message}`, value: causeValue(problem.value) });
}

export const configService = resourceService(configEntity, {
  extras: () => configExtras(),
  render: (r) => renderConfig(r.row, r.configTypeName ?? ''),
  create: {
    async check(deps, values, body: ConfigCreate) {
      if (!body.configTypeId) throw fieldError('type', 'config type must be specified', body.configTypeId);
      if ((await configTypeSchema(deps.db, body.configTypeId)) === undefined) throw fieldError('type', 'invalid config type', body.configTypeId);
      values.configTypeId = body.configTypeId;
      await checkData(deps, body.configTypeId, values.data);
    },
  },
  update: {
    // The type cannot change; the data is checked against the type the config has.
    check: (deps, values, existing) => checkData(deps, existing.configTypeId, values.data),
    // Services using the config, and overrides with it, render its data: their identities see a change.
    statements: (deps, existing, _values, now) => [markServicesChanged(deps.db, now, affectedIdentities.usingConfig(existing.id))],
  },
  remove: {
    // The controller refuses with a 500 here (§5.2); a referenced entity is a 409 (ADR 0001).
    async check(deps, existing) {
      const used = await overrideUsing(deps.db, existing.id);
      if (used) throw new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', { field: 'configId', reason: `config is in use by identity ${used.identityId} for service ${used.serviceId}`, value: existing.id });
    },
    // Services using the config simply lose it (§5.2).
    cascade: (deps, existing) => [markServicesChanged(deps.db, deps.now(), affectedIdentities.usingConfig(existing.id)), detachConfig(deps.db, existing.id)],
  },
});

/** `GET /config-types/{id}/configs`. */
export function listConfigsOfType(deps: Deps, configTypeId: string, query: ListQueryParams) {
  return listRelated(deps, configEntity, query, { where: configsOfType(configTypeId), extras: configExtras(), render: (r) => renderConfig(r.row, r.configTypeName ?? '') });
}
