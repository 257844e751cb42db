-- Auth policies reference external JWT signers by id (primary.extJwt.allowedSigners, a JSON array, and
-- secondary.requireExtJwtSigner). The services check both directions before writing; these triggers hold
-- the rule when a policy write and a signer delete race. The messages are matched by the services.
CREATE TRIGGER `external_jwt_signers_referenced` BEFORE DELETE ON `external_jwt_signers`
WHEN EXISTS (
  SELECT 1 FROM `auth_policies` p
  WHERE p.`require_ext_jwt_signer` = OLD.`id`
     OR EXISTS (SELECT 1 FROM json_each(p.`ext_jwt_allowed_signers`) j WHERE j.`value` = OLD.`id`)
)
BEGIN SELECT RAISE(ABORT, 'ext_jwt_signer_referenced'); END;
--> statement-breakpoint
CREATE TRIGGER `auth_policies_signers_exist_insert` BEFORE INSERT ON `auth_policies`
WHEN (NEW.`require_ext_jwt_signer` IS NOT NULL AND NOT EXISTS (SELECT 1 FROM `external_jwt_signers` s WHERE s.`id` = NEW.`require_ext_jwt_signer`))
  OR EXISTS (SELECT 1 FROM json_each(NEW.`ext_jwt_allowed_signers`) j WHERE NOT EXISTS (SELECT 1 FROM `external_jwt_signers` s WHERE s.`id` = j.`value`))
BEGIN SELECT RAISE(ABORT, 'ext_jwt_signer_missing'); END;
--> statement-breakpoint
CREATE TRIGGER `auth_policies_signers_exist_update` BEFORE UPDATE OF `require_ext_jwt_signer`, `ext_jwt_allowed_signers` ON `auth_policies`
WHEN (NEW.`require_ext_jwt_signer` IS NOT NULL AND NOT EXISTS (SELECT 1 FROM `external_jwt_signers` s WHERE s.`id` = NEW.`require_ext_jwt_signer`))
  OR EXISTS (SELECT 1 FROM json_each(NEW.`ext_jwt_allowed_signers`) j WHERE NOT EXISTS (SELECT 1 FROM `external_jwt_signers` s WHERE s.`id` = j.`value`))
BEGIN SELECT RAISE(ABORT, 'ext_jwt_signer_missing'); END;
