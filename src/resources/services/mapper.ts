import { baseEntity } from '../../crud/render.js';
import type { DialBind, ServiceDetail } from '../../generated/management-types.js';
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

/** Service permissions for an identity: Bind before Dial; `Invalid` when neither, never empty (§4.2). */
function permissions(canDial: boolean, canBind: boolean): DialBind[] {
  const out: DialBind[] = [];
  if (canBind) out.push('Bind');
  if (canDial) out.push('Dial');
  return out.length > 0 ? out : ['Invalid'];
}

/** The serviceDetail shape; `permissions` and the config overrides are those of the viewing identity. */
export function renderService(row: ServiceRow, extras: ServiceExtraValues, wanted: readonly string[]): ServiceDetail {
  const attached = readJson<AttachedConfig[]>(extras.attached, []);
  const perms = permissions(Boolean(extras.canDial), Boolean(extras.canBind));
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
    // No posture checks exist in this store, so each permission gets the controller's placeholder (§4.4).
    postureQueries: perms.map((p) => ({ policyId: `dummy ${p.toLowerCase()} policy: no posture checks defined`, policyType: p, isPassing: true, postureQueries: [] })),
  };
}
