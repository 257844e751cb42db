-- Stores written before this index may hold several password authenticators for one identity: keep the oldest.
DELETE FROM `authenticators` WHERE `method` = 'updb' AND `id` NOT IN (SELECT `id` FROM (SELECT `id`, ROW_NUMBER() OVER (PARTITION BY `identity_id` ORDER BY `created_at`, `id`) AS `n` FROM `authenticators` WHERE `method` = 'updb') WHERE `n` = 1);--> statement-breakpoint
CREATE UNIQUE INDEX `authenticators_identity_updb_uq` ON `authenticators` (`identity_id`) WHERE method = 'updb';
