CREATE TABLE `integrity_results` (
	`run_id` text NOT NULL,
	`seq` integer NOT NULL,
	`description` text NOT NULL,
	`fixed` integer NOT NULL,
	PRIMARY KEY(`run_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `integrity_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`mode` text NOT NULL,
	`in_progress` integer NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	`error` text DEFAULT '' NOT NULL,
	`result_count` integer DEFAULT 0 NOT NULL,
	`too_many_errors` integer DEFAULT false NOT NULL,
	`cursor` text DEFAULT '{"checker":0,"cursor":null}' NOT NULL,
	`lease_token` text,
	`lease_until` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `operation_slots` (
	`name` text PRIMARY KEY NOT NULL,
	`last_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `identities` ADD `trace_id` text;--> statement-breakpoint
ALTER TABLE `identities` ADD `trace_until` integer;--> statement-breakpoint
ALTER TABLE `identities` ADD `trace_channels` text;