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
