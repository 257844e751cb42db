CREATE TABLE `controller_settings` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`redirect_uris` text,
	`post_logout_uris` text
);
--> statement-breakpoint
CREATE TABLE `oidc_auth_requests` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`state` text,
	`nonce` text,
	`scopes` text NOT NULL,
	`code_challenge` text NOT NULL,
	`api_session_id` text NOT NULL,
	`remote_address` text NOT NULL,
	`cert_fingerprints` text DEFAULT '[]' NOT NULL,
	`config_types` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`identity_id` text,
	`authenticator_id` text,
	`amr` text DEFAULT '[]' NOT NULL,
	`auth_time` integer,
	`totp_required` integer DEFAULT false NOT NULL,
	`totp_done` integer DEFAULT false NOT NULL,
	`ext_jwt_pending` text,
	`cert_extendable` integer DEFAULT false NOT NULL,
	`cert_extend_requested` integer DEFAULT false NOT NULL,
	`cert_key_roll_requested` integer DEFAULT false NOT NULL,
	`improper_chain` integer DEFAULT false NOT NULL,
	`sdk_info` text,
	`env_info` text,
	`code_hash` text,
	`consumed_at` integer,
	`consume_id` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oidc_auth_requests_code_uq` ON `oidc_auth_requests` (`code_hash`);--> statement-breakpoint
CREATE INDEX `oidc_auth_requests_expires_idx` ON `oidc_auth_requests` (`expires_at`);--> statement-breakpoint
CREATE TABLE `oidc_revocations` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`subject` text NOT NULL,
	`not_before` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `oidc_revocations_created_idx` ON `oidc_revocations` (`created_at`);--> statement-breakpoint
CREATE TABLE `oidc_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`identity_id` text NOT NULL,
	`authenticator_id` text NOT NULL,
	`client_id` text NOT NULL,
	`current_jti` text NOT NULL,
	`previous_jti` text,
	`rotated_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE INDEX `oidc_sessions_identity_idx` ON `oidc_sessions` (`identity_id`);--> statement-breakpoint
CREATE INDEX `oidc_sessions_authenticator_idx` ON `oidc_sessions` (`authenticator_id`);--> statement-breakpoint
CREATE INDEX `oidc_sessions_expires_idx` ON `oidc_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `oidc_signing_keys` (
	`kid` text PRIMARY KEY NOT NULL,
	`use` text DEFAULT 'server' NOT NULL,
	`alg` text NOT NULL,
	`jwk` text NOT NULL,
	`encrypted_key` text,
	`not_after` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `oidc_signing_keys_use_idx` ON `oidc_signing_keys` (`use`,`not_after`);--> statement-breakpoint
-- OIDC access tokens are checked without a store read, against a deny-list every instance copies
-- (src/oidc/revocations.ts). These triggers append to it in the very statement that disables, demotes or
-- deletes an identity or deletes an authenticator, whichever code path makes the change, and end the
-- identity's (or authenticator's) OIDC sessions so that their refresh tokens are refused too.
-- 253402300799999 (year 9999) as not_before stops every token of the subject; created_at is the store's clock.
CREATE TRIGGER `oidc_revoke_identity_disabled` AFTER UPDATE OF `disabled_at` ON `identities`
WHEN NEW.`disabled_at` IS NOT NULL AND NEW.`disabled_at` IS NOT OLD.`disabled_at`
BEGIN
  INSERT INTO `oidc_revocations` (`kind`, `subject`, `not_before`, `created_at`) VALUES ('identity', NEW.`id`, NEW.`disabled_at`, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
  UPDATE `oidc_sessions` SET `revoked_at` = NEW.`disabled_at` WHERE `identity_id` = NEW.`id` AND `revoked_at` IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `oidc_revoke_identity_admin_changed` AFTER UPDATE OF `is_admin`, `is_default_admin` ON `identities`
WHEN NEW.`is_admin` IS NOT OLD.`is_admin` OR NEW.`is_default_admin` IS NOT OLD.`is_default_admin`
BEGIN
  INSERT INTO `oidc_revocations` (`kind`, `subject`, `not_before`, `created_at`) VALUES ('identity', NEW.`id`, NEW.`updated_at`, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;
--> statement-breakpoint
CREATE TRIGGER `oidc_revoke_identity_deleted` AFTER DELETE ON `identities`
BEGIN
  INSERT INTO `oidc_revocations` (`kind`, `subject`, `not_before`, `created_at`) VALUES ('identity', OLD.`id`, 253402300799999, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
  DELETE FROM `oidc_sessions` WHERE `identity_id` = OLD.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `oidc_revoke_authenticator_deleted` AFTER DELETE ON `authenticators`
BEGIN
  INSERT INTO `oidc_revocations` (`kind`, `subject`, `not_before`, `created_at`) VALUES ('authenticator', OLD.`id`, 253402300799999, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
  UPDATE `oidc_sessions` SET `revoked_at` = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) WHERE `authenticator_id` = OLD.`id` AND `revoked_at` IS NULL;
END;
--> statement-breakpoint
-- The global controller settings (null lists: the built-in defaults), never deleted.
INSERT INTO `controller_settings` (`id`, `created_at`, `updated_at`, `tags`, `is_system`, `redirect_uris`, `post_logout_uris`)
VALUES ('global', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), '{}', 1, NULL, NULL)
ON CONFLICT DO NOTHING;
