import { referencedError, resourceService } from '../../crud/service.js';
import { fieldError } from '../../errors.js';
import { isEmptySchema, jsonSchemaValidator } from '../../lib/json-schema.js';
import { configTypeEntity } from './entity.js';
import { renderConfigType } from './mapper.js';
import { configsOfType } from './repo.js';
import { affectedIdentities, markServicesChanged } from '../../policy/service-updates-repo.js';

/** `all` selects every config type in `configTypes` lists, so no type may be named so (§2.5). */
const RESERVED_NAME = 'all';

/**
 * A config type's schema (§5.1): optional (`{}` means none); otherwise a JSON schema whose root type is
 * `object`, which the validator that will check configs' data can load.
 */
function checkDefinition(values: { name?: string; schema?: Record<string, unknown> }): void {
  if (values.name === RESERVED_NAME) throw fieldError('name', 'all is a keyword and may not be used as a config type name', values.name);
  const schema = values.schema;
  if (isEmptySchema(schema)) return;
  if (schema!.type !== 'object') throw fieldError('schema', 'invalid config type schema, root type must be object', schema);
  try {
    jsonSchemaValidator(schema!);
  } catch (e) {
    throw fieldError('schema', `invalid schema: ${e instanceof Error ? e.message : String(e)}`, schema);
  }
}

export const configTypeService = resourceService(configTypeEntity, {
  render: (r) => renderConfigType(r.row),
  create: { check: (_deps, values) => checkDefinition(values) },
  update: {
    check: (_deps, values) => checkDefinition(values),
    // A type's name keys the `config` map of every service with a config of the type (§4.3).
    statements: (deps, existing, _values, now) => [markServicesChanged(deps.db, now, affectedIdentities.usingConfigType(existing.id))],
  },
  remove: {
    // The controller refuses with a 500; a referenced entity is a 409 everywhere else (ADR 0001).
    async check(deps, existing) {
      const users = await configsOfType(deps.db, existing.id);
      if (users.length > 0) throw referencedError('configTypes', 'configs', users, 'configTypeId');
    },
  },
});
