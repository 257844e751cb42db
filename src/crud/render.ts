/**
 * What every entity rendering shares: `_links`, entity references and the base-entity fields
 * (id, timestamps, tags, links) of the specification's `baseEntity`.
 */
import type { BaseEntity, EntityRef } from '../generated/management-types.js';
import { readJson } from '../lib/json.js';
import { iso } from '../lib/time.js';
import type { BaseRow } from './entity.js';

export interface Link {
  href: string;
}
export type Links = Record<string, Link>;

/** Builds `_links` from relative paths: links('./identities/x', {sessions: 'sessions'}) nests under self. */
export function links(self: string, nested: Record<string, string> = {}): Links {
  const out: Links = { self: { href: self } };
  // for…in over the literal maps the resources declare: no entries array per rendered entity.
  for (const name in nested) {
    const target = nested[name];
    out[name] = { href: target.startsWith('./') ? target : `${self}/${target}` };
  }
  return out;
}

/** An entityRef: `{_links, entity, id, name}`. */
export function entityRef(entity: string, id: string, name: string, nested?: Record<string, string>) {
  return { _links: links(`./${entity}/${id}`, nested), entity, id, name };
}

/** The `baseEntity` fields of a row: `{id, createdAt, updatedAt, tags, _links}`. */
export function baseEntity(row: BaseRow, self: string, nested?: Record<string, string>): BaseEntity {
  return {
    id: row.id,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    tags: readJson<Record<string, unknown>>(row.tags, {}),
    _links: links(self, nested),
  };
}

/**
 * A stored set of strings (role attributes, a policy's roles) as the controller renders it: `null` when
 * empty. Its store keeps an empty list as none, and OpenZiti's own tests expect `null` for an entity
 * created without attributes (ADR 0001).
 */
export function stringSetOrNull(text: string | null | undefined): string[] | null {
  const values = readJson<string[]>(text, []);
  return values.length === 0 ? null : values;
}
