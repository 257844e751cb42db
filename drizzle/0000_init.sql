CREATE TABLE `pki_material` (
	`name` text PRIMARY KEY NOT NULL,
	`cert_pem` text NOT NULL,
	`encrypted_key` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `api_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`token` text NOT NULL,
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
CREATE UNIQUE INDEX `api_sessions_token_uq` ON `api_sessions` (`token`);--> statement-breakpoint
CREATE INDEX `api_sessions_identity_idx` ON `api_sessions` (`identity_id`);--> statement-breakpoint
CREATE INDEX `api_sessions_authenticator_idx` ON `api_sessions` (`authenticator_id`);--> statement-breakpoint
CREATE INDEX `api_sessions_last_activity_idx` ON `api_sessions` (`last_activity_at`);--> statement-breakpoint
CREATE TABLE `auth_attempts` (
	`authenticator_id` text PRIMARY KEY NOT NULL,
	`failed_count` integer DEFAULT 0 NOT NULL,
	`last_failed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `auth_policies` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`name` text NOT NULL,
	`cert_allowed` integer DEFAULT true NOT NULL,
	`cert_allow_expired` integer DEFAULT true NOT NULL,
	`updb_allowed` integer DEFAULT true NOT NULL,
	`updb_min_password_length` integer DEFAULT 5 NOT NULL,
	`updb_require_special_char` integer DEFAULT false NOT NULL,
	`updb_require_number_char` integer DEFAULT false NOT NULL,
	`updb_require_mixed_case` integer DEFAULT false NOT NULL,
	`updb_max_attempts` integer DEFAULT 0 NOT NULL,
	`updb_lockout_duration_minutes` integer DEFAULT 0 NOT NULL,
	`ext_jwt_allowed` integer DEFAULT true NOT NULL,
	`ext_jwt_allowed_signers` text,
	`require_totp` integer DEFAULT false NOT NULL,
	`require_ext_jwt_signer` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `auth_policies_name_unique` ON `auth_policies` (`name`);--> statement-breakpoint
CREATE TABLE `authenticators` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`identity_id` text NOT NULL,
	`method` text NOT NULL,
	`username` text,
	`password_hash` text,
	`cert_fingerprint` text,
	`cert_pem` text,
	`public_key_print` text,
	`is_issued_by_network` integer DEFAULT false NOT NULL,
	`unverified_cert_pem` text,
	`unverified_fingerprint` text,
	`is_extend_requested` integer DEFAULT false NOT NULL,
	`is_key_roll_requested` integer DEFAULT false NOT NULL,
	`extend_requested_at` integer,
	`last_auth_resolved_to_root` integer DEFAULT false NOT NULL,
	`last_extend_rolled_keys` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `authenticators_username_uq` ON `authenticators` (`username`);--> statement-breakpoint
CREATE UNIQUE INDEX `authenticators_fingerprint_uq` ON `authenticators` (`cert_fingerprint`);--> statement-breakpoint
CREATE INDEX `authenticators_identity_idx` ON `authenticators` (`identity_id`);--> statement-breakpoint
CREATE TABLE `identities` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`name` text NOT NULL,
	`type_id` text DEFAULT 'Default' NOT NULL,
	`is_admin` integer DEFAULT false NOT NULL,
	`is_default_admin` integer DEFAULT false NOT NULL,
	`auth_policy_id` text DEFAULT 'default' NOT NULL,
	`external_id` text,
	`role_attributes` text DEFAULT '[]' NOT NULL,
	`default_hosting_precedence` text DEFAULT 'default' NOT NULL,
	`default_hosting_cost` integer DEFAULT 0 NOT NULL,
	`service_hosting_costs` text DEFAULT '{}' NOT NULL,
	`service_hosting_precedences` text DEFAULT '{}' NOT NULL,
	`app_data` text DEFAULT '{}' NOT NULL,
	`env_info` text,
	`sdk_info` text,
	`disabled_at` integer,
	`disabled_until` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `identities_name_uq` ON `identities` (`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `identities_external_id_uq` ON `identities` (`external_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `identities_default_admin_uq` ON `identities` (`is_default_admin`) WHERE is_default_admin = 1;--> statement-breakpoint
CREATE INDEX `identities_auth_policy_idx` ON `identities` (`auth_policy_id`);--> statement-breakpoint
CREATE INDEX `identities_created_at_idx` ON `identities` (`created_at`);--> statement-breakpoint
CREATE INDEX `identities_updated_at_idx` ON `identities` (`updated_at`);--> statement-breakpoint
CREATE INDEX `identities_type_idx` ON `identities` (`type_id`);--> statement-breakpoint
CREATE TABLE `identity_types` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`name` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `identity_types_name_unique` ON `identity_types` (`name`);