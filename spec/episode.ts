import { z } from "zod";
import { RewardSchema } from "./grade.ts";
import { type AssistantMessage, ChatMessageSchema } from "./messages.ts";
import { EndedBySchema, RowToolSchema } from "./row.ts";

/** The parts a planned grid's situations are dealt into, by a stable hash of each situation's id. */
export const SPLITS = ["train", "holdout", "eval"] as const;
export const SplitSchema = z.enum(SPLITS);
export type Split = z.infer<typeof SplitSchema>;

/**
 * How to open an episode (OpenEnv's `reset`). Every field is optional: with none, the episode
 * plays its own situation, or the next one of its grid. `task_id` names a planned situation;
 * `seed` reseeds it (the same coordinate with a fresh world and person), or without `task_id`
 * draws the situation; `split` draws from one part of the grid; `episode_id` names the row.
 */
export const ResetRequestSchema = z.strictObject({
  seed: z.int().min(0).max(0xffffffff, "expected a seed from 0 to 2^32 - 1").optional(),
  episode_id: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[\w.:-]+$/, "expected letters, digits, and _ . : - only")
    .optional(),
  task_id: z.string().min(1).max(256).optional(),
  split: SplitSchema.optional(),
});
export type ResetRequest = z.infer<typeof ResetRequestSchema>;

/** Which episode a result belongs to: the row id it will have, its situation, and the seed. */
export const EpisodeMetadataSchema = z.looseObject({
  episode_id: z.string(),
  task_id: z.string(),
  seed: z.int().min(0),
});
export type EpisodeMetadata = z.infer<typeof EpisodeMetadataSchema>;

/**
 * What the agent observes: the messages new since its last step (at reset the system prompt,
 * earlier contact and the person's first message), the tools at reset, whether the episode was
 * cut off (`truncated`, Gymnasium's meaning), how it ended, and which episode it is. `truncated` and
 * `metadata` live here, inside the observation, because OpenEnv's clients pass the observation
 * through whole and read only `observation`, `reward` and `done` beside it.
 */
export const ObservationSchema = z.object({
  messages: z.array(ChatMessageSchema),
  tools: z.array(RowToolSchema).optional(),
  /** Assistant messages so far. */
  turn: z.int().min(0),
  truncated: z.boolean(),
  ended_by: EndedBySchema.optional(),
  metadata: EpisodeMetadataSchema,
});
export type Observation = z.infer<typeof ObservationSchema>;

/**
 * The result of a reset or a step, as OpenEnv's `observation` message carries it: `done` when the
 * episode ended or was cut off (`observation.truncated` says which); `reward` is null until it is
 * done, then the episode's reward (its full grade is `Episode.reward()`).
 */
export const StepResultSchema = z.object({
  observation: ObservationSchema,
  reward: RewardSchema.nullable(),
  done: z.boolean(),
});
export type StepResult = z.infer<typeof StepResultSchema>;

/**
 * What a rollout drives: an episode in process, or one behind the environment server reached
 * by a client. The same loop runs over either.
 */
export interface EpisodeDriver {
  reset(request?: ResetRequest): Promise<StepResult>;
  step(message: AssistantMessage): Promise<StepResult>;
}
