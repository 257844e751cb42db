-- API-session tokens are stored as their SHA-256 only. A stored plain token cannot be hashed in SQL,
-- so the table is recreated empty: live sessions end once at this upgrade and clients log in again.
DROP TABLE `api_sessions`;--> statement-breakpoint
CREATE TABLE `api_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`token_hash` text NOT NULL,
	`identity_id` text NOT NULL,
	`authenticator_id` text NOT NULL,
	`ip_address` text DEFAULT '' NOT NULL,
	`config_types` text DEFAULT '[]' NOT NULL,
	`is_mfa_required` integer DEFAULT false NOT NULL,
	`is_mfa_complete` integer DEFAULT false NOT NULL,
	`passed_mfa_at` integer,
	`is_cert_extendable` integer DEFAULT false NOT NULL,
	`improper_client_cert_chain` integer DEFAULT false NOT NULL,
	`last_activity_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_sessions_token_hash_uq` ON `api_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `api_sessions_identity_idx` ON `api_sessions` (`identity_id`);--> statement-breakpoint
CREATE INDEX `api_sessions_authenticator_idx` ON `api_sessions` (`authenticator_id`);--> statement-breakpoint
CREATE INDEX `api_sessions_last_activity_idx` ON `api_sessions` (`last_activity_at`);
