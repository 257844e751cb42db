CREATE TABLE `api_session_posture` (
	`api_session_id` text PRIMARY KEY NOT NULL,
	`identity_id` text NOT NULL,
	`woken_at` integer,
	`unlocked_at` integer,
	`sdk_info` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `failed_service_requests` (
	`seq` integer PRIMARY KEY NOT NULL,
	`identity_id` text NOT NULL,
	`api_session_id` text NOT NULL,
	`service_id` text NOT NULL,
	`service_name` text NOT NULL,
	`session_type` text NOT NULL,
	`when_at` integer NOT NULL,
	`policy_failures` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `failed_service_requests_identity_idx` ON `failed_service_requests` (`identity_id`,`seq`);--> statement-breakpoint
CREATE TABLE `posture_checks` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`name` text NOT NULL,
	`type_id` text NOT NULL,
	`role_attributes` text DEFAULT '[]' NOT NULL,
	`operating_systems` text,
	`mac_addresses` text,
	`domains` text,
	`process` text,
	`processes` text,
	`semantic` text,
	`timeout_seconds` integer,
	`prompt_on_wake` integer,
	`prompt_on_unlock` integer,
	`ignore_legacy_endpoints` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `posture_checks_name_uq` ON `posture_checks` (`name`);--> statement-breakpoint
CREATE TABLE `posture_responses` (
	`identity_id` text NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`posture_check_id` text NOT NULL,
	`data` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`identity_id`, `kind`, `key`)
);
--> statement-breakpoint
-- An API session's posture (endpoint state, SDK info) ends with the session, whichever code path deletes it.
CREATE TRIGGER `api_session_posture_cleanup` AFTER DELETE ON `api_sessions`
BEGIN DELETE FROM `api_session_posture` WHERE `api_session_id` = OLD.`id`; END;
