import type { FreezeRoles } from "./freeze.ts";

/** What the report thread is started with: the spec, the plan's settings, the freeze's limits and roles. */
export interface ReportThreadSetup {
  spec: unknown;
  specHash: string;
  rows: number;
  seed: number | string | undefined;
  limits: { keep: number; keepBytes: number };
  roles: FreezeRoles;
}

/** A page asked for: the held episodes' lines, and how many conversations to list. */
export interface ReportQuestion {
  ask: number;
  held: { rows: readonly string[]; dropped: number };
  conversations?: number;
}

/** The page, or why it could not be made. */
export type ReportAnswer = { ask: number; page: string } | { ask: number; error: string };
