CREATE TABLE `list_versions` (
	`name` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `list_versions` (`name`, `version`) VALUES ('identities', random()), ('identities.updated_at', random());
--> statement-breakpoint
CREATE TRIGGER `identities_list_version_insert` AFTER INSERT ON `identities`
BEGIN UPDATE `list_versions` SET `version` = random() WHERE `name` = 'identities'; END;
--> statement-breakpoint
CREATE TRIGGER `identities_list_version_delete` AFTER DELETE ON `identities`
BEGIN UPDATE `list_versions` SET `version` = random() WHERE `name` = 'identities'; END;
--> statement-breakpoint
CREATE TRIGGER `identities_list_version_update` AFTER UPDATE OF `id`, `created_at`, `is_system`, `tags`, `name`, `type_id`, `is_admin`, `is_default_admin`, `auth_policy_id`, `external_id`, `role_attributes` ON `identities`
WHEN OLD.`id` IS NOT NEW.`id` OR OLD.`created_at` IS NOT NEW.`created_at` OR OLD.`is_system` IS NOT NEW.`is_system` OR OLD.`tags` IS NOT NEW.`tags` OR OLD.`name` IS NOT NEW.`name` OR OLD.`type_id` IS NOT NEW.`type_id` OR OLD.`is_admin` IS NOT NEW.`is_admin` OR OLD.`is_default_admin` IS NOT NEW.`is_default_admin` OR OLD.`auth_policy_id` IS NOT NEW.`auth_policy_id` OR OLD.`external_id` IS NOT NEW.`external_id` OR OLD.`role_attributes` IS NOT NEW.`role_attributes`
BEGIN UPDATE `list_versions` SET `version` = random() WHERE `name` = 'identities'; END;
--> statement-breakpoint
CREATE TRIGGER `identities_list_version_updated_at` AFTER UPDATE OF `updated_at` ON `identities`
WHEN OLD.`updated_at` IS NOT NEW.`updated_at`
BEGIN UPDATE `list_versions` SET `version` = random() WHERE `name` = 'identities.updated_at'; END;
