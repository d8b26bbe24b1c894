import { z } from "zod";
import { ConditionKindSchema } from "./axes.ts";
import {
  CheckSchema,
  ConductFindingSchema,
  FailureClassSchema,
  JudgeMetaSchema,
  LabelSchema,
  RewardSchema,
  SimFindingSchema,
} from "./grade.ts";
import { ChatMessageSchema } from "./messages.ts";
import { CoordinateSchema } from "./situation.ts";
import { FaultSchema, WorldStateSchema } from "./world.ts";

/** A tool as rows carry it: OpenAI function format, as trainers (TRL's `tools` column) expect. */
export const RowToolSchema = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()),
  }),
});

/** The named ways the offline agent slips, so checks and graders can be tested against them. */
export const SLIP_KINDS = [
  "skipped_confirmation",
  "invented_identifier",
  "claimed_unperformed_action",
  "claimed_success_after_error",
  "early_handoff",
] as const;
export const SlipKindSchema = z.enum(SLIP_KINDS);
export type SlipKind = z.infer<typeof SlipKindSchema>;

/** One slip the agent made, at the index of the message it made it in. */
export const SlipSchema = z.object({
  kind: SlipKindSchema,
  message: z.int().min(0),
  detail: z.string(),
});
export type Slip = z.infer<typeof SlipSchema>;

/** How a conversation ended. */
export const EndedBySchema = z.enum([
  "user_done",
  "user_gave_up",
  "handoff",
  "turn_limit",
  "error",
]);
export type EndedBy = z.infer<typeof EndedBySchema>;

/** What the person came for: the call that would do it, and the request in words. */
export const GoalSchema = z.object({
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  text: z.string(),
  /** Other arguments that would do as well: the other of two duplicate records. */
  alternatives: z.array(z.record(z.string(), z.unknown())).optional(),
});
export type Goal = z.infer<typeof GoalSchema>;

/**
 * Whether the person got what they came for, whatever they said at the end: the records are where
 * the goal's call would leave them, and a read's facts were told. The world decides, not the person.
 */
export const OutcomeSchema = z.object({
  reached: z.boolean(),
  reason: z.string(),
  checks: z.array(CheckSchema),
});
export type Outcome = z.infer<typeof OutcomeSchema>;

/** Facts of the episode itself. */
export const EpisodeFactsSchema = z.object({
  ended_by: EndedBySchema,
  truncated: z.boolean(),
  /** Assistant messages in the conversation, history turns excluded. */
  turns: z.int().min(0),
  /** Leading messages after the system prompt that replay earlier contact (the history axis), not the policy's. */
  history_turns: z.int().min(0),
  goal: GoalSchema,
  /** Slips the offline agent made (empty for other agents). */
  slips: z.array(SlipSchema),
  /** Errors that ended or marred the episode (a backend failing mid-way). */
  errors: z.array(z.string()),
  /** The writer that failed and why, when the offline writer opened the conversation in its place. */
  writer_fallback: z.object({ writer: z.string(), error: z.string() }).optional(),
  /** The episode's outcome (absent on rows written before outcomes were recorded). */
  outcome: OutcomeSchema.optional(),
});
export type EpisodeFacts = z.infer<typeof EpisodeFactsSchema>;

/** One simulated conversation: one JSONL line. Rows come back ungraded; grading fills the optional fields. */
export const RowSchema = z.object({
  id: z.string(),
  task_id: z.string(),
  messages: z.array(ChatMessageSchema),
  tools: z.array(RowToolSchema),
  situation: z.object({
    id: z.string(),
    axes: CoordinateSchema,
    seed: z.int().min(0),
    cell: z.int().min(0),
    pass: z.int().min(0),
    flipped_from: ConditionKindSchema.optional(),
    world_state: WorldStateSchema,
    faults: z.array(FaultSchema),
  }),
  persona: z.object({
    tags: z.array(z.string()),
    /** Identifiers and the email the person holds: what they may state without it being made up. */
    holds: z.array(z.string()),
    /** What the person got wrong on purpose (a misread number): stated, but not a simulator fault. */
    misstated: z.array(z.string()),
  }),
  models: z.object({ agent: z.string(), simulator: z.string(), user_model: z.string() }),
  episode: EpisodeFactsSchema,
  /** The deterministic conduct checks on the agent, each with its evidence. */
  conduct: z.array(ConductFindingSchema),
  /** Checks on the simulated person; a row with any is left out of the agent's failure figures. */
  sim_faults: z.array(SimFindingSchema),
  reward: RewardSchema.optional(),
  reason: z.string().optional(),
  failure_class: FailureClassSchema.optional(),
  judge_meta: JudgeMetaSchema.optional(),
  /** Why the judge could not judge this row (it stays ungraded; there is no default score). */
  grade_error: z.string().optional(),
  labels: z.array(LabelSchema).optional(),
  /** A gold reward from elsewhere with no record of who made it: reported as unmeasured, never as agreement. */
  gold_reward: RewardSchema.optional(),
  policy_version: z.string().optional(),
});
export type Row = z.infer<typeof RowSchema>;
