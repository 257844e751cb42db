import { links, stringSetOrNull } from '../../crud/render.js';
import { extend } from '../../lib/objects.js';
import { iso } from '../../lib/time.js';
import type {
  PostureCheckDetail,
  PostureCheckDomainDetail,
  PostureCheckMacAddressDetail,
  PostureCheckMfaDetail,
  PostureCheckOperatingSystemDetail,
  PostureCheckProcessDetail,
  PostureCheckProcessMultiDetail,
} from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import { checkSettings, type PostureCheckRow } from '../../posture/checks.js';

type AnyPostureCheckDetail =
  | PostureCheckOperatingSystemDetail
  | PostureCheckMacAddressDetail
  | PostureCheckDomainDetail
  | PostureCheckProcessDetail
  | PostureCheckProcessMultiDetail
  | PostureCheckMfaDetail;

/** A posture check with its type's properties (§7.1); `version` is always 1, as the controller's. `extend`, not spread: docs/architecture.md, "Rendering". */
export function renderPostureCheck(row: PostureCheckRow): AnyPostureCheckDetail {
  const s = checkSettings(row);
  const base: PostureCheckDetail = {
    id: row.id,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    tags: readJson<Record<string, unknown>>(row.tags, {}),
    _links: links(`./posture-checks/${row.id}`),
    name: row.name,
    typeId: s.typeId,
    version: 1,
    roleAttributes: stringSetOrNull(row.roleAttributes),
  };
  switch (s.typeId) {
    case 'OS':
      return extend(base, { operatingSystems: s.operatingSystems }) satisfies PostureCheckOperatingSystemDetail;
    case 'MAC':
      return extend(base, { macAddresses: s.macAddresses }) satisfies PostureCheckMacAddressDetail;
    case 'DOMAIN':
      return extend(base, { domains: s.domains }) satisfies PostureCheckDomainDetail;
    case 'PROCESS':
      return extend(base, { process: extend(s.process, { hashes: s.process.hashes ?? [], signerFingerprint: s.process.signerFingerprint ?? '' }) }) satisfies PostureCheckProcessDetail;
    case 'PROCESS_MULTI':
      // Lists render as lists, never null (the controller fills them in too).
      return extend(base, { semantic: s.semantic, processes: s.processes.map((p) => extend(p, { hashes: p.hashes ?? [], signerFingerprints: p.signerFingerprints ?? [] })) }) satisfies PostureCheckProcessMultiDetail;
    case 'MFA':
      return extend(base, {
        timeoutSeconds: s.timeoutSeconds,
        promptOnWake: s.promptOnWake,
        promptOnUnlock: s.promptOnUnlock,
        ignoreLegacyEndpoints: s.ignoreLegacyEndpoints,
      }) satisfies PostureCheckMfaDetail;
  }
}
