import { compileRoleFilter, type ListQueryParams } from '../../crud/list-query.js';
import type { WriteValues } from '../../crud/props.js';
import type { Statement } from '../../crud/repo.js';
import { listRelated, resourceService } from '../../crud/service.js';
import { postureChecks } from '../../db/schema/index.js';
import type { Deps } from '../../deps.js';
import { fieldError } from '../../errors.js';
import type { OperatingSystem, Process, ProcessMulti } from '../../generated/management-types.js';
import { textProblem } from '../../lib/limits.js';
import { cleanHex, type PostureCheckTypeId } from '../../posture/checks.js';
import { policiesOfCheck } from '../../posture/repo.js';
import { parseRange, SemverError } from '../../posture/semver.js';
import { entityLinkStatements, entityRemovalStatements, linkedToPolicy } from '../../policy/repo.js';
import { listRoleAttributes } from '../../policy/service.js';
import { affectedIdentities, markServicesChanged } from '../../policy/service-updates-repo.js';
import { postureCheckEntity } from './entity.js';
import { renderPostureCheck } from './mapper.js';

type Values = WriteValues<typeof postureChecks, typeof postureCheckEntity.props>;
type Column = keyof Values & string;

/** The type-specific columns of each type; the others stay null. */
const TYPE_COLUMNS: Record<PostureCheckTypeId, Column[]> = {
  OS: ['operatingSystems'],
  MAC: ['macAddresses'],
  DOMAIN: ['domains'],
  PROCESS: ['process'],
  PROCESS_MULTI: ['processes', 'semantic'],
  MFA: ['timeoutSeconds', 'promptOnWake', 'promptOnUnlock', 'ignoreLegacyEndpoints'],
};
const ALL_TYPE_COLUMNS = [...new Set(Object.values(TYPE_COLUMNS).flat())];

/** Bounds on what a check may hold: it is evaluated on every service list and session request. */
const MAX_ITEMS = 100;
const MAX_TEXT = 4096;

function list(field: string, value: unknown): string[] {
  if (!Array.isArray(value)) throw fieldError(field, `${field} must be a list of strings`, value);
  if (value.length > MAX_ITEMS) throw fieldError(field, `${field} should have at most ${MAX_ITEMS} items`, `${value.length} items`);
  value.forEach((v, i) => text(`${field}[${i}]`, v));
  return value as string[];
}

function text(field: string, value: unknown): string {
  if (typeof value !== 'string') throw fieldError(field, `${field} must be a string`, value);
  const problem = textProblem(value, MAX_TEXT, field);
  if (problem) throw fieldError(field, problem, value);
  return value;
}

/**
 * OS versions must be ranges the semver grammar accepts (§7.1). The controller answers an invalid one
 * with 500; here it is 400 with the field (docs/adr/0001-controller-quirks.md).
 */
function checkOperatingSystems(value: OperatingSystem[]): OperatingSystem[] {
  if (value.length > MAX_ITEMS) throw fieldError('operatingSystems', `operatingSystems should have at most ${MAX_ITEMS} items`, `${value.length} items`);
  return value.map((os, i) => {
    const versions = list(`operatingSystems[${i}].versions`, os.versions ?? []);
    versions.forEach((version, j) => {
      try {
        parseRange(version);
      } catch (e) {
        if (!(e instanceof SemverError)) throw e;
        throw fieldError(`operatingSystems[${i}].versions[${j}]`, `invalid version for os: [${os.type}], version: [${version}]: ${e.message}`, version);
      }
    });
    return { type: os.type, versions };
  });
}

/** PROCESS: hashes and the signer fingerprint are stored lower-case (§7.1). */
function checkProcess(p: Process): Process {
  const hashes = list('process.hashes', p.hashes ?? []).map((h) => h.toLowerCase());
  const signerFingerprint = text('process.signerFingerprint', p.signerFingerprint ?? '').toLowerCase();
  return { osType: p.osType, path: text('process.path', p.path), hashes, signerFingerprint };
}

function checkProcesses(value: ProcessMulti[]): ProcessMulti[] {
  if (value.length > MAX_ITEMS) throw fieldError('processes', `processes should have at most ${MAX_ITEMS} items`, `${value.length} items`);
  return value.map((p, i) => ({
    osType: p.osType,
    path: text(`processes[${i}].path`, p.path),
    hashes: list(`processes[${i}].hashes`, p.hashes ?? []),
    signerFingerprints: list(`processes[${i}].signerFingerprints`, p.signerFingerprints ?? []),
  }));
}

/** Validates and normalises the type-specific values being written (those present in `values`). */
function checkTypeValues(values: Values): void {
  if (values.operatingSystems != null) values.operatingSystems = checkOperatingSystems(values.operatingSystems as OperatingSystem[]);
  // MAC addresses: lower-case hex, every other character stripped (`AA:BB-cc` → `aabbcc`).
  if (values.macAddresses != null) values.macAddresses = list('macAddresses', values.macAddresses).map(cleanHex);
  if (values.domains != null) values.domains = list('domains', values.domains);
  if (values.process != null) values.process = checkProcess(values.process as unknown as Process) as unknown as Record<string, unknown>;
  if (values.processes != null) values.processes = checkProcesses(values.processes as ProcessMulti[]);
}

/** Stamps the identities of the service policies matching the check: their service lists show its queries. */
const stampPolicies = (deps: Deps, checkId: string, now: number): Statement => markServicesChanged(deps.db, now, affectedIdentities.ofPolicies(policiesOfCheck(checkId)));

export const postureCheckService = resourceService(postureCheckEntity, {
  render: (r) => renderPostureCheck(r.row),
  listWhere: (query) => compileRoleFilter(query.roleFilter, query.roleSemantic, postureChecks.roleAttributes, postureChecks.id),
  create: {
    check(_deps, values) {
      const own = TYPE_COLUMNS[values.typeId as PostureCheckTypeId];
      for (const column of ALL_TYPE_COLUMNS) if (!own.includes(column)) (values as Record<string, unknown>)[column] = null;
      checkTypeValues(values);
    },
    statements: (deps, id, values, now) => [...entityLinkStatements(deps.db, 'postureCheck', id, values.roleAttributes ?? [], now), stampPolicies(deps, id, now)],
  },
  update: {
    /**
     * The type is fixed at creation: the body must name it (it chose the schema the body was validated
     * with), and only the properties of that type are written.
     */
    check(_deps, values, existing, body: { typeId?: string | null }) {
      if (!body?.typeId) throw fieldError('typeId', 'typeId in body is required', body?.typeId);
      if (body.typeId !== existing.typeId) throw fieldError('typeId', `typeId may not be changed (the check is of type ${existing.typeId})`, body.typeId);
      delete values.typeId;
      const own = TYPE_COLUMNS[existing.typeId];
      for (const column of ALL_TYPE_COLUMNS) if (!own.includes(column)) delete (values as Record<string, unknown>)[column];
      checkTypeValues(values);
    },
    statements: (deps, existing, values, now) => [
      stampPolicies(deps, existing.id, now),
      ...(values.roleAttributes !== undefined ? entityLinkStatements(deps.db, 'postureCheck', existing.id, values.roleAttributes, now) : []),
      stampPolicies(deps, existing.id, now),
    ],
  },
  remove: {
    // The policies naming it lose its `@id` (§3.8); their identities' service lists lose its queries.
    cascade: (deps, existing) => [stampPolicies(deps, existing.id, deps.now()), ...entityRemovalStatements(deps.db, 'postureCheck', existing.id, deps.now())],
  },
});

/** `GET /service-policies/{id}/posture-checks`: the checks the policy's posture-check roles match. */
export function listServicePolicyPostureChecks(deps: Deps, policyId: string, query: ListQueryParams) {
  return listRelated(deps, postureCheckEntity, query, { where: linkedToPolicy('postureCheck', policyId), render: (r) => renderPostureCheck(r.row) });
}

/** `GET /posture-check-role-attributes` (§3.4). */
export function listPostureCheckRoleAttributes(deps: Deps, query: ListQueryParams) {
  return listRoleAttributes(deps, 'postureCheck', query);
}
