-- Each service's Dial and Bind service policies, kept beside policy_links (docs/adr/0006-policy-links.md).
CREATE TABLE `service_grant_sets` (
	`service_id` text PRIMARY KEY NOT NULL,
	`grants` text NOT NULL
);
--> statement-breakpoint
-- Every existing service's set, from its links (the expression src/policy/repo.ts writes with).
INSERT INTO `service_grant_sets` (`service_id`, `grants`)
SELECT `services`.`id`, (SELECT json_group_array(json_array(zb.policy_id, zb.policy_type)) FROM `policy_links` AS zb
  WHERE zb.entity_id = `services`.`id` AND zb.role = 'service' AND zb.policy_type IN ('bind', 'dial'))
FROM `services`;
