CREATE TABLE `mfas` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`identity_id` text NOT NULL,
	`is_verified` integer DEFAULT false NOT NULL,
	`secret` text NOT NULL,
	`recovery_codes` text NOT NULL,
	`last_used_step` integer,
	`last_use_id` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mfas_identity_uq` ON `mfas` (`identity_id`);