import type { InputIssue } from "../env/index.ts";
import type { FreezeRequest, FreezeResult } from "../spec/index.ts";
import type { FreezeRoles, PlanSettings } from "./freeze.ts";

/** What the held-episodes thread is started with: the spec, the plan's settings, the freeze's limits, roles and folder. */
export interface HeldThreadSetup {
  spec: unknown;
  specHash: string;
  /** As the main thread planned them: the thread does not plan the grid again. */
  plan: PlanSettings;
  limits: { keep: number; keepBytes: number };
  roles: FreezeRoles;
  /** Where `POST /v1/freeze` writes its datasets. */
  folder: string;
}

/** Finished episodes' rows to hold (oldest first), the report page asked for, or a freeze. */
export type HeldMessage =
  | { kind: "add"; lines: string[] }
  | { kind: "report"; ask: number; conversations?: number }
  | { kind: "freeze"; ask: number; request: FreezeRequest };

/** Sent once the thread has planned its grid and holds episodes. */
export const HELD_READY = "ready";

/** The answer to an ask: the page, the freeze's result, or why it failed (with the issues of an input refused). */
export type HeldAnswer =
  | { ask: number; page: string }
  | { ask: number; frozen: FreezeResult }
  | { ask: number; error: string; refused?: { what: string; issues: InputIssue[] } };
