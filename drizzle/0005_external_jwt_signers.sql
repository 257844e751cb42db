CREATE TABLE `external_jwt_signers` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`tags` text DEFAULT '{}' NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`name` text NOT NULL,
	`enabled` integer DEFAULT false NOT NULL,
	`issuer` text NOT NULL,
	`audience` text DEFAULT '' NOT NULL,
	`cert_pem` text,
	`jwks_endpoint` text,
	`kid` text,
	`claims_property` text DEFAULT 'sub' NOT NULL,
	`use_external_id` integer DEFAULT false NOT NULL,
	`external_auth_url` text,
	`client_id` text,
	`scopes` text DEFAULT '[]' NOT NULL,
	`target_token` text DEFAULT 'ACCESS' NOT NULL,
	`fingerprint` text,
	`common_name` text,
	`not_before` integer,
	`not_after` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `external_jwt_signers_name_uq` ON `external_jwt_signers` (`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `external_jwt_signers_issuer_uq` ON `external_jwt_signers` (`issuer`);--> statement-breakpoint
CREATE UNIQUE INDEX `external_jwt_signers_kid_uq` ON `external_jwt_signers` (`kid`);--> statement-breakpoint
CREATE UNIQUE INDEX `external_jwt_signers_fingerprint_uq` ON `external_jwt_signers` (`fingerprint`);