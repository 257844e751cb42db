import { listMeta, resolveListQuery, type ListQueryParams } from '../../crud/list-query.js';
import { links } from '../../crud/render.js';
import type { ListResult } from '../../crud/service.js';
import type { Deps } from '../../deps.js';
import { notFound } from '../../errors.js';
import type { OperatingSystem, PostureCheckTypeDetail } from '../../generated/management-types.js';
import { iso } from '../../lib/time.js';
import { listPostureCheckTypeIds, postureCheckTypeFields } from './repo.js';

const WINDOWS: OperatingSystem = { type: 'Windows', versions: ['Vista', '7', '8', '10', '2000'] };
const LINUX: OperatingSystem = { type: 'Linux', versions: ['4.14', '4.19', '5.4', '5.9'] };
const IOS: OperatingSystem = { type: 'iOS', versions: ['11', '12'] };
const MACOS: OperatingSystem = { type: 'macOS', versions: ['10.15', '11.0'] };
const ANDROID: OperatingSystem = { type: 'Android', versions: ['9', '10', '11'] };
const any = (type: OperatingSystem['type']): OperatingSystem => ({ type, versions: [] });

/**
 * The built-in posture check types (§7.4): fixed content, sorted by id. There is no MFA entry, as in the
 * controller (a check's `typeId` does not reference this list). Their timestamps are fixed.
 */
const TYPES: readonly { id: string; name: string; operatingSystems: OperatingSystem[] }[] = [
  { id: 'DOMAIN', name: 'Windows Domain Check', operatingSystems: [WINDOWS] },
  { id: 'MAC', name: 'MAC Address Check', operatingSystems: [WINDOWS, LINUX, MACOS, ANDROID] },
  { id: 'OS', name: 'Operating System Check', operatingSystems: [WINDOWS, LINUX, ANDROID, MACOS, IOS] },
  { id: 'PROCESS', name: 'Process Check', operatingSystems: [WINDOWS, MACOS, LINUX] },
  { id: 'PROCESS_MULTI', name: 'Process Multi Check', operatingSystems: [any('Windows'), any('macOS'), any('Linux')] },
];
const BUILT_IN_AT = Date.UTC(2020, 0, 1);
export const BUILT_IN_POSTURE_CHECK_TYPES = TYPES.length;

function render(t: (typeof TYPES)[number]): PostureCheckTypeDetail {
  return {
    id: t.id,
    createdAt: iso(BUILT_IN_AT),
    updatedAt: iso(BUILT_IN_AT),
    tags: {},
    _links: links(`./posture-check-types/${t.id}`),
    name: t.name,
    operatingSystems: t.operatingSystems.map((os) => ({ type: os.type, versions: [...os.versions] })),
    version: '1',
  };
}

/** `GET /posture-check-types`: the usual filter, sort and paging over the fixed list. */
export async function listPostureCheckTypes(deps: Deps, query: ListQueryParams): Promise<ListResult<PostureCheckTypeDetail>> {
  const q = resolveListQuery(query, postureCheckTypeFields);
  const { ids, total } = await listPostureCheckTypeIds(deps.db, TYPES, BUILT_IN_AT, q);
  const byId = new Map(TYPES.map((t) => [t.id, t]));
  return { data: ids.map((id) => render(byId.get(id)!)), meta: listMeta(total, q.limit, q.offset, postureCheckTypeFields) };
}

export function detailPostureCheckType(id: string): PostureCheckTypeDetail {
  const t = TYPES.find((x) => x.id === id);
  if (!t) throw notFound('postureCheckType', id);
  return render(t);
}
