import { baseEntity } from '../../crud/render.js';
import type { DialBind, PostureQueries, ServiceDetail } from '../../generated/management-types.js';
import type { PolicyPosture } from '../../posture/evaluate.js';
import { readJson } from '../../lib/json.js';
import type { ServiceRow } from './entity.js';
import type { ServiceExtraValues } from './repo.js';

interface AttachedConfig {
  typeId: string;
  typeName: string;
  configId: string;
  data: Record<string, unknown>;
}

export const SERVICE_LINKS = { 'service-edge-router-policies': 'service-edge-router-policies', 'service-policies': 'service-policies', terminators: 'terminators', configs: 'configs' };

/**
 * The `config` map (§4.3): attached configs of the wanted types, replaced by the identity's overrides,
 * keyed by type name. `wanted` holds type ids or names; `all` means every type; unknown entries drop out.
 */
function configMap(attached: AttachedConfig[], overrides: AttachedConfig[], wanted: readonly string[]): Record<string, Record<string, unknown>> {
  const all = wanted.includes('all');
  const want = new Set(wanted);
  const byType = new Map<string, AttachedConfig>();
  for (const c of [...attached, ...overrides]) if (all || want.has(c.typeId) || want.has(c.typeName)) byType.set(c.typeId, c);
  const out: Record<string, Record<string, unknown>> = {};
  for (const c of byType.values()) out[c.typeName] = c.data;
  return out;
}

/** A service policy through which the viewing identity reaches the service. */
export interface Grant {
  policyId: string;
  type: 'dial' | 'bind';
}

export function readGrants(extras: Pick<ServiceExtraValues, 'grants'>): Grant[] {
  return readJson<[string, 'dial' | 'bind'][]>(extras.grants, []).map(([policyId, type]) => ({ policyId, type }));
}

/** Service permissions for an identity: Bind before Dial; `Invalid` when neither, never empty (§4.2). */
export function permissions(grants: readonly Grant[]): DialBind[] {
  const out: DialBind[] = [];
  if (grants.some((g) => g.type === 'bind')) out.push('Bind');
  if (grants.some((g) => g.type === 'dial')) out.push('Dial');
  return out.length > 0 ? out : ['Invalid'];
}

/**
 * `postureQueries` (§4.4): one entry per granting policy with its evaluated checks when posture checks
 * exist (`posture` given), otherwise the controller's placeholder per permission.
 */
function postureQueries(grants: readonly Grant[], perms: readonly DialBind[], posture: ReadonlyMap<string, PolicyPosture> | undefined): PostureQueries[] {
  if (posture && grants.length > 0) {
    return grants.map((g) => {
      const p = posture.get(g.policyId);
      return { policyId: g.policyId, policyType: g.type === 'bind' ? 'Bind' : 'Dial', isPassing: p?.isPassing ?? true, postureQueries: p?.postureQueries ?? [] };
    });
  }
  return perms.map((p) => ({ policyId: `dummy ${p.toLowerCase()} policy: no posture checks defined`, policyType: p, isPassing: true, postureQueries: [] }));
}

/**
 * The serviceDetail shape; `permissions`, `postureQueries` and the config overrides are those of the
 * viewing identity, `config` holds the `wanted` config types.
 */
export function renderService(row: ServiceRow, extras: ServiceExtraValues, wanted: readonly string[], posture?: ReadonlyMap<string, PolicyPosture>): ServiceDetail {
  const attached = readJson<AttachedConfig[]>(extras.attached, []);
  const grants = readGrants(extras);
  const perms = permissions(grants);
  return {
    ...baseEntity(row, `./services/${row.id}`, SERVICE_LINKS),
    name: row.name,
    terminatorStrategy: row.terminatorStrategy,
    maxIdleTimeMillis: row.maxIdleTimeMillis,
    encryptionRequired: row.encryptionRequired,
    roleAttributes: readJson<string[]>(row.roleAttributes, []),
    configs: attached.map((c) => c.configId).sort(),
    config: configMap(attached, readJson<AttachedConfig[]>(extras.overrides, []), wanted),
    permissions: perms,
    postureQueries: postureQueries(grants, perms, posture),
  };
}
