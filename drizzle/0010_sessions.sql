CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`api_session_id` text NOT NULL,
	`identity_id` text NOT NULL,
	`service_id` text NOT NULL,
	`type` text NOT NULL,
	`service_policies` text DEFAULT '[]' NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sessions_api_session_service_type_uq` ON `sessions` (`api_session_id`,`service_id`,`type`);--> statement-breakpoint
CREATE INDEX `sessions_identity_idx` ON `sessions` (`identity_id`);--> statement-breakpoint
CREATE INDEX `sessions_service_idx` ON `sessions` (`service_id`);--> statement-breakpoint
CREATE INDEX `sessions_created_at_idx` ON `sessions` (`created_at`);--> statement-breakpoint
-- Sessions end with their API session, their service and their identity, whatever code path deletes
-- those (logout, expiry, admin delete, disable; service and identity deletes): a rule the store keeps.
CREATE TRIGGER `sessions_end_with_api_session` AFTER DELETE ON `api_sessions`
BEGIN DELETE FROM `sessions` WHERE `api_session_id` = OLD.`id`; END;
--> statement-breakpoint
CREATE TRIGGER `sessions_end_with_service` AFTER DELETE ON `services`
BEGIN DELETE FROM `sessions` WHERE `service_id` = OLD.`id`; END;
--> statement-breakpoint
CREATE TRIGGER `sessions_end_with_identity` AFTER DELETE ON `identities`
BEGIN DELETE FROM `sessions` WHERE `identity_id` = OLD.`id`; END;
