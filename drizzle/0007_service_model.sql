CREATE TABLE `identity_service_configs` (
	`identity_id` text NOT NULL,
	`service_id` text NOT NULL,
	`config_type_id` text NOT NULL,
	`config_id` text NOT NULL,
	PRIMARY KEY(`identity_id`, `service_id`, `config_type_id`)
);
--> statement-breakpoint
CREATE INDEX `identity_service_configs_service_idx` ON `identity_service_configs` (`service_id`);--> statement-breakpoint
CREATE INDEX `identity_service_configs_config_idx` ON `identity_service_configs` (`config_id`);--> statement-breakpoint
CREATE TABLE `service_configs` (
	`service_id` text NOT NULL,
	`config_type_id` text NOT NULL,
	`config_id` text NOT NULL,
	PRIMARY KEY(`service_id`, `config_type_id`)
);
--> statement-breakpoint
CREATE INDEX `service_configs_config_idx` ON `service_configs` (`config_id`);--> statement-breakpoint
CREATE TABLE `services` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`name` text NOT NULL,
	`terminator_strategy` text DEFAULT 'smartrouting' NOT NULL,
	`max_idle_time_millis` integer DEFAULT 0 NOT NULL,
	`encryption_required` integer DEFAULT true NOT NULL,
	`role_attributes` text DEFAULT '[]' NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `services_name_uq` ON `services` (`name`);--> statement-breakpoint
CREATE TABLE `edge_routers` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`name` text NOT NULL,
	`role_attributes` text DEFAULT '[]' NOT NULL,
	`cost` integer DEFAULT 0 NOT NULL,
	`no_traversal` integer DEFAULT false NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`is_tunneler_enabled` integer DEFAULT false NOT NULL,
	`is_verified` integer DEFAULT false NOT NULL,
	`fingerprint` text,
	`cert_pem` text,
	`app_data` text DEFAULT '{}' NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `edge_routers_name_uq` ON `edge_routers` (`name`);--> statement-breakpoint
CREATE TABLE `terminators` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`service_id` text NOT NULL,
	`router_id` text NOT NULL,
	`binding` text NOT NULL,
	`address` text NOT NULL,
	`identity` text DEFAULT '' NOT NULL,
	`identity_secret` text,
	`cost` integer DEFAULT 0 NOT NULL,
	`precedence` text DEFAULT 'default' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `terminators_service_idx` ON `terminators` (`service_id`);--> statement-breakpoint
CREATE INDEX `terminators_router_idx` ON `terminators` (`router_id`);--> statement-breakpoint
CREATE TABLE `transit_routers` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`name` text NOT NULL,
	`cost` integer DEFAULT 0 NOT NULL,
	`no_traversal` integer DEFAULT false NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`is_verified` integer DEFAULT false NOT NULL,
	`fingerprint` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `transit_routers_name_uq` ON `transit_routers` (`name`);--> statement-breakpoint
CREATE TABLE `access_counts` (
	`identity_id` text NOT NULL,
	`policy_types` text NOT NULL,
	`generation` integer NOT NULL,
	`total` integer NOT NULL,
	PRIMARY KEY(`identity_id`, `policy_types`)
);
--> statement-breakpoint
CREATE TABLE `edge_router_policies` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`name` text NOT NULL,
	`semantic` text DEFAULT 'AllOf' NOT NULL,
	`identity_roles` text DEFAULT '[]' NOT NULL,
	`edge_router_roles` text DEFAULT '[]' NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `edge_router_policies_name_uq` ON `edge_router_policies` (`name`);--> statement-breakpoint
CREATE TABLE `link_generations` (
	`id` text PRIMARY KEY NOT NULL,
	`generation` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `policy_links` (
	`policy_id` text NOT NULL,
	`role` text NOT NULL,
	`entity_id` text NOT NULL,
	`policy_type` text NOT NULL,
	PRIMARY KEY(`policy_id`, `role`, `entity_id`)
);
--> statement-breakpoint
CREATE INDEX `policy_links_entity_idx` ON `policy_links` (`entity_id`,`role`,`policy_type`,`policy_id`);--> statement-breakpoint
CREATE TABLE `service_edge_router_policies` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`name` text NOT NULL,
	`semantic` text DEFAULT 'AllOf' NOT NULL,
	`service_roles` text DEFAULT '[]' NOT NULL,
	`edge_router_roles` text DEFAULT '[]' NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `service_edge_router_policies_name_uq` ON `service_edge_router_policies` (`name`);--> statement-breakpoint
CREATE TABLE `service_policies` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`semantic` text DEFAULT 'AllOf' NOT NULL,
	`identity_roles` text DEFAULT '[]' NOT NULL,
	`service_roles` text DEFAULT '[]' NOT NULL,
	`posture_check_roles` text DEFAULT '[]' NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `service_policies_name_uq` ON `service_policies` (`name`);