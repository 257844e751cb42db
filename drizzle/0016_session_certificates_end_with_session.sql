-- Session certificates (reference auth-and-pki §3.6) end with their API session, whatever code path
-- deletes it (logout, expiry, disable, authenticator or identity delete): a rule the store keeps, as it
-- does for sessions. Before this, a sweep after logins scanned every certificate for a missing session.
CREATE TRIGGER `session_certificates_end_with_api_session` AFTER DELETE ON `api_sessions`
BEGIN DELETE FROM `api_session_certificates` WHERE `api_session_id` = OLD.`id`; END;
--> statement-breakpoint
-- Those the sweep had not reached yet.
DELETE FROM `api_session_certificates` WHERE NOT EXISTS (SELECT 1 FROM `api_sessions` WHERE `api_sessions`.`id` = `api_session_certificates`.`api_session_id`);
