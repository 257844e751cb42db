-- An API session's posture (endpoint state, SDK info) ends with the session, whichever code path deletes it.
CREATE TRIGGER `api_session_posture_cleanup` AFTER DELETE ON `api_sessions`
BEGIN DELETE FROM `api_session_posture` WHERE `api_session_id` = OLD.`id`; END;
