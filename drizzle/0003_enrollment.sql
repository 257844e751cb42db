CREATE TABLE `api_session_certificates` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`api_session_id` text NOT NULL,
	`identity_id` text NOT NULL,
	`subject` text NOT NULL,
	`fingerprint` text NOT NULL,
	`valid_from` integer NOT NULL,
	`valid_to` integer NOT NULL,
	`cert_pem` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `api_session_certificates_session_idx` ON `api_session_certificates` (`api_session_id`);--> statement-breakpoint
CREATE INDEX `api_session_certificates_fingerprint_idx` ON `api_session_certificates` (`fingerprint`);--> statement-breakpoint
CREATE TABLE `cas` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`name` text NOT NULL,
	`cert_pem` text NOT NULL,
	`fingerprint` text NOT NULL,
	`is_verified` integer DEFAULT false NOT NULL,
	`verification_token` text NOT NULL,
	`is_auto_ca_enrollment_enabled` integer DEFAULT false NOT NULL,
	`is_ott_ca_enrollment_enabled` integer DEFAULT false NOT NULL,
	`is_auth_enabled` integer DEFAULT false NOT NULL,
	`identity_roles` text DEFAULT '[]' NOT NULL,
	`identity_name_format` text DEFAULT '[caName]-[commonName]' NOT NULL,
	`external_id_claim` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cas_name_uq` ON `cas` (`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `cas_fingerprint_uq` ON `cas` (`fingerprint`);--> statement-breakpoint
CREATE TABLE `enrollments` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`method` text NOT NULL,
	`identity_id` text,
	`ca_id` text,
	`username` text,
	`token_hash` text NOT NULL,
	`jwt_sealed` text NOT NULL,
	`issued_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `enrollments_token_hash_uq` ON `enrollments` (`token_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `enrollments_identity_method_uq` ON `enrollments` (`identity_id`,`method`);--> statement-breakpoint
CREATE INDEX `enrollments_ca_idx` ON `enrollments` (`ca_id`);