-- Every router as `/transit-routers` and `/routers` list it: transit routers, and edge routers as routers
-- managed through `/edge-routers` (`is_base`), verified as far as this resource is concerned.
CREATE VIEW `all_routers` AS
SELECT `id`, `created_at`, `updated_at`, `tags`, `is_system`, `name`, `cost`, `no_traversal`, `disabled`, `is_verified`, `fingerprint`, 0 AS `is_base` FROM `transit_routers`
UNION ALL
SELECT `id`, `created_at`, `updated_at`, `tags`, `is_system`, `name`, `cost`, `no_traversal`, `disabled`, 1 AS `is_verified`, `fingerprint`, 1 AS `is_base` FROM `edge_routers`;
--> statement-breakpoint
-- Edge and transit routers share one name index in the controller: a name is unique across both tables.
CREATE TRIGGER `edge_routers_name_shared_insert` BEFORE INSERT ON `edge_routers`
WHEN EXISTS (SELECT 1 FROM `transit_routers` WHERE `name` = NEW.`name`)
BEGIN SELECT RAISE(ABORT, 'router_name_taken'); END;
--> statement-breakpoint
CREATE TRIGGER `edge_routers_name_shared_update` BEFORE UPDATE OF `name` ON `edge_routers`
WHEN NEW.`name` IS NOT OLD.`name` AND EXISTS (SELECT 1 FROM `transit_routers` WHERE `name` = NEW.`name`)
BEGIN SELECT RAISE(ABORT, 'router_name_taken'); END;
--> statement-breakpoint
CREATE TRIGGER `transit_routers_name_shared_insert` BEFORE INSERT ON `transit_routers`
WHEN EXISTS (SELECT 1 FROM `edge_routers` WHERE `name` = NEW.`name`)
BEGIN SELECT RAISE(ABORT, 'router_name_taken'); END;
--> statement-breakpoint
CREATE TRIGGER `transit_routers_name_shared_update` BEFORE UPDATE OF `name` ON `transit_routers`
WHEN NEW.`name` IS NOT OLD.`name` AND EXISTS (SELECT 1 FROM `edge_routers` WHERE `name` = NEW.`name`)
BEGIN SELECT RAISE(ABORT, 'router_name_taken'); END;
