ALTER TABLE `enrollments` ADD `edge_router_id` text;--> statement-breakpoint
ALTER TABLE `enrollments` ADD `transit_router_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `enrollments_edge_router_uq` ON `enrollments` (`edge_router_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `enrollments_transit_router_uq` ON `enrollments` (`transit_router_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `edge_routers_fingerprint_uq` ON `edge_routers` (`fingerprint`);--> statement-breakpoint
CREATE UNIQUE INDEX `transit_routers_fingerprint_uq` ON `transit_routers` (`fingerprint`);