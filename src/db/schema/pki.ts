import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The controller's own PKI, one row per item (`root`, `signer`, `server`, ...). Private keys are
 * stored encrypted (AES-GCM under a key derived from CONTROLLER_SECRET); certificates as PEM.
 * Rows are inserted if absent, so concurrent first starts converge on the first writer's PKI.
 */
export const pkiMaterial = sqliteTable('pki_material', {
  name: text('name').primaryKey(),
  certPem: text('cert_pem').notNull(),
  encryptedKey: text('encrypted_key').notNull(),
  createdAt: integer('created_at').notNull(),
});
