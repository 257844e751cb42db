import { and, eq, inArray } from 'drizzle-orm';
import { hashPassword } from './auth/password.js';
import type { Config } from './config.js';
import { atomic, type Db } from './db/client.js';
import { authenticators, authPolicies, configTypes, identities, identityTypes } from './db/schema/index.js';
import { sha256Hex } from './lib/encoding.js';
import { shortId } from './lib/ids.js';
import { loadOrCreatePki } from './pki/bootstrap.js';
import { BUILT_IN_CONFIG_TYPES, SUPERSEDED_BUILT_IN_SCHEMAS } from './resources/config-types/builtins.js';
import type { Pki } from './pki/types.js';

export interface AdminSeed {
  username: string;
  /** When absent a password is generated and returned once (Node prints it; Workers require one). */
  password?: string;
}

export interface BootstrapResult {
  pki: Pki;
  /** Set only when this call created the default admin. */
  createdAdmin?: { username: string; generatedPassword?: string };
}

/** Built-in rows every store has; inserted if absent, so every start (and every instance) may run it. */
export async function seedBuiltIns(db: Db, now: number): Promise<void> {
  const base = { createdAt: now, updatedAt: now, tags: '{}' };
  await atomic(db, [
    db.insert(identityTypes).values([
      { ...base, id: 'Default', name: 'Default' },
      { ...base, id: 'Router', name: 'Router' },
    ]).onConflictDoNothing(),
    db.insert(authPolicies).values({ ...base, id: 'default', name: 'Default', isSystem: true }).onConflictDoNothing(),
    // Not protected (§5.4): admins may change or delete them; a start re-creates one whose id and name are both free.
    ...BUILT_IN_CONFIG_TYPES.map((t) => db.insert(configTypes).values({ ...base, id: t.id, name: t.name, schema: JSON.stringify(t.schema) }).onConflictDoNothing()),
  ]);
  await upgradeBuiltInSchemas(db, now);
}

/**
 * A built-in config type still holding a schema an earlier release seeded gets the current one. Only the
 * exact text that was read is replaced (a conditional write), so an admin's change, before or during the
 * start, is never overwritten.
 */
async function upgradeBuiltInSchemas(db: Db, now: number): Promise<void> {
  const stored = await db.select({ id: configTypes.id, schema: configTypes.schema }).from(configTypes).where(inArray(configTypes.id, Object.keys(SUPERSEDED_BUILT_IN_SCHEMAS)));
  const updates = [];
  for (const row of stored) {
    const current = BUILT_IN_CONFIG_TYPES.find((t) => t.id === row.id);
    if (!current) continue;
    const digest = await sha256Hex(new TextEncoder().encode(row.schema));
    if (!SUPERSEDED_BUILT_IN_SCHEMAS[row.id]?.includes(digest)) continue;
    updates.push(db.update(configTypes).set({ schema: JSON.stringify(current.schema), updatedAt: now }).where(and(eq(configTypes.id, row.id), eq(configTypes.schema, row.schema))));
  }
  if (updates.length > 0) await atomic(db, updates);
}

/** Creates the default admin once; concurrent starts converge thanks to the unique indexes. */
async function seedDefaultAdmin(db: Db, seed: AdminSeed, now: number): Promise<BootstrapResult['createdAdmin']> {
  const existing = await db.select({ id: identities.id }).from(identities).where(eq(identities.isDefaultAdmin, true)).limit(1);
  if (existing.length > 0) return undefined;
  const generated = seed.password ? undefined : generatePassword();
  const password = seed.password ?? generated!;
  const identityId = shortId();
  const base = { createdAt: now, updatedAt: now, tags: '{}' };
  await atomic(db, [
    db.insert(identities).values({ ...base, id: identityId, name: 'Default Admin', typeId: 'Default', isAdmin: true, isDefaultAdmin: true }).onConflictDoNothing(),
    // If another instance won the identity insert, its admin holds the same username and this is skipped too.
    db.insert(authenticators).values({ ...base, id: shortId(), identityId, method: 'updb', username: seed.username, passwordHash: await hashPassword(password) }).onConflictDoNothing(),
  ]);
  const mine = await db.select({ id: identities.id }).from(identities).where(eq(identities.id, identityId)).limit(1);
  return mine.length > 0 ? { username: seed.username, generatedPassword: generated } : undefined;
}

export function generatePassword(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, 'A').replace(/\//g, 'z');
}

/** Everything a fresh store needs before serving: built-in rows, the PKI and the default admin. */
export async function bootstrapStore(db: Db, config: Config, admin: AdminSeed | undefined, now = Date.now()): Promise<BootstrapResult> {
  await seedBuiltIns(db, now);
  const pki = await loadOrCreatePki(db, { secret: config.controllerSecret, hostnames: config.hostnames, trustDomain: config.trustDomain ?? undefined });
  const createdAdmin = admin ? await seedDefaultAdmin(db, admin, now) : undefined;
  return { pki, createdAdmin };
}
