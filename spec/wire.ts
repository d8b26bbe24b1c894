import { z } from "zod";
import { ResetRequestSchema, StepResultSchema } from "./episode.ts";
import { CheckSchema, GradeSchema } from "./grade.ts";
import { AssistantMessageSchema } from "./messages.ts";
import { isPlainObject, keysWithin } from "./plain.ts";

/**
 * The environment server's wire contract: OpenEnv's WebSocket envelope (`reset` / `step` /
 * `state` / `close` → `observation` / `state` / `error`) and rehearse's additive extensions
 * (`reward`, `resume`, a request `id` echoed on its reply), and the options `serve` takes.
 */

/** OpenEnv's error codes (`WSErrorCode`), and rehearse's one addition, `RATE_LIMITED`. */
export const WIRE_ERROR_CODES = [
  "INVALID_JSON",
  "UNKNOWN_TYPE",
  "VALIDATION_ERROR",
  "EXECUTION_ERROR",
  "CAPACITY_REACHED",
  "FACTORY_ERROR",
  "SESSION_ERROR",
  "RATE_LIMITED",
] as const;
export const WireErrorCodeSchema = z.enum(WIRE_ERROR_CODES);
export type WireErrorCode = z.infer<typeof WireErrorCodeSchema>;

/** The message types a client may send: OpenEnv's four, then rehearse's `reward` and `resume`. */
export const CLIENT_MESSAGE_TYPES = [
  "reset",
  "step",
  "state",
  "close",
  "reward",
  "resume",
] as const;
export type ClientMessageType = (typeof CLIENT_MESSAGE_TYPES)[number];

/** A request id the server echoes on the reply, so a client can match replies to requests. */
export const RequestIdSchema = z.union([
  z.string().max(128, "expected an id of at most 128 characters"),
  z.int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER),
]);
export type RequestId = z.infer<typeof RequestIdSchema>;

/**
 * The action of a `step` (OpenEnv's `data`): the agent's assistant message in OpenAI chat format.
 * `metadata` is OpenEnv's `Action.metadata`, accepted and ignored.
 */
export const StepActionSchema = z.strictObject({
  message: AssistantMessageSchema,
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type StepAction = z.infer<typeof StepActionSchema>;

/** `resume`: reattach a dropped connection's session, by the id a reset reply gave. */
export const ResumeRequestSchema = z.strictObject({
  session_id: z.string().min(1).max(128),
});
export type ResumeRequest = z.infer<typeof ResumeRequestSchema>;

/** `data` for the messages that carry none; OpenEnv sends no `data` at all, an empty object is taken too. */
const NoData = z.strictObject({}).optional();

/**
 * One message from a client, checked at the edge. `step`'s message is checked whole by the episode
 * (`AssistantMessageSchema`, and its size and tool-call limits) so that it is parsed once.
 */
export const ClientMessageSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("reset"),
    data: ResetRequestSchema.optional(),
    id: RequestIdSchema.optional(),
  }),
  z.strictObject({
    type: z.literal("step"),
    data: z.strictObject({
      message: z.unknown().refine((m) => m !== undefined, "expected the assistant message"),
      metadata: z.record(z.string(), z.unknown()).optional(),
    }),
    id: RequestIdSchema.optional(),
  }),
  z.strictObject({ type: z.literal("state"), data: NoData, id: RequestIdSchema.optional() }),
  z.strictObject({ type: z.literal("close"), data: NoData, id: RequestIdSchema.optional() }),
  z.strictObject({ type: z.literal("reward"), data: NoData, id: RequestIdSchema.optional() }),
  z.strictObject({
    type: z.literal("resume"),
    data: ResumeRequestSchema,
    id: RequestIdSchema.optional(),
  }),
]);
export type ClientMessage = z.infer<typeof ClientMessageSchema>;

const STEP_KEYS = new Set(["type", "data", "id"]);
const MESSAGE_ONLY = new Set(["message"]);

/**
 * The usual `step` (its type, its message and perhaps an id, nothing else) read without zod: the
 * object `ClientMessageSchema.parse` returns for it, or null for anything else, which the schema
 * then reads. Most frames a live server reads are these.
 */
export function plainStepMessage(record: Record<string, unknown>): ClientMessage | null {
  if (record.type !== "step" || !keysWithin(record, STEP_KEYS)) return null;
  const { data, id } = record;
  if (!isPlainObject(data) || !keysWithin(data, MESSAGE_ONLY)) return null;
  const { message } = data;
  if (message === undefined) return null;
  if (!("id" in record)) return { type: "step", data: { message } };
  const plainId =
    (typeof id === "string" && id.length <= 128) ||
    (typeof id === "number" && Number.isSafeInteger(id));
  return plainId ? { type: "step", data: { message }, id: id as RequestId } : null;
}

/** A reset or step result on the wire: the episode's result, and at reset the session's id (for `resume`). */
export const ObservationDataSchema = StepResultSchema.extend({
  session_id: z.string().optional(),
});
export type ObservationData = z.infer<typeof ObservationDataSchema>;

/**
 * A session's state (OpenEnv's `State`: `episode_id` and `step_count`, extra fields allowed). A
 * `resume` reply adds the last reset or step result and the id of the request it answered, so a
 * client whose connection dropped mid-step knows whether that step ran.
 */
export const SessionStateSchema = z.object({
  episode_id: z.string().nullable(),
  step_count: z.int().min(0),
  session_id: z.string().nullable(),
  task_id: z.string().nullable(),
  seed: z.int().min(0).nullable(),
  done: z.boolean(),
  truncated: z.boolean(),
  last: ObservationDataSchema.nullable().optional(),
  last_id: RequestIdSchema.nullable().optional(),
});
export type SessionState = z.infer<typeof SessionStateSchema>;

/**
 * The full grade (`reward` reply): the episode's outcome and conduct checks, and, once the episode
 * is done and a grader is configured, the grader's verdict as the reward (its grade under `grader`,
 * or `grade_error` when it failed: the episode's own reward stands then).
 */
export const RewardReportSchema = GradeSchema.extend({
  checks: z.array(CheckSchema),
  done: z.boolean(),
  grader: GradeSchema.optional(),
  grade_error: z.string().optional(),
});
export type RewardReport = z.infer<typeof RewardReportSchema>;

/** An error reply's data: OpenEnv's `message` and `code`, with what each code adds. */
export const WireErrorSchema = z.object({
  message: z.string(),
  code: WireErrorCodeSchema,
  /** VALIDATION_ERROR: each problem at its path. */
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  /** CAPACITY_REACHED. */
  active_sessions: z.int().min(0).optional(),
  max_sessions: z.int().min(1).optional(),
  /** RATE_LIMITED: when the next step will be taken. */
  retry_after_ms: z.int().min(0).optional(),
});
export type WireError = z.infer<typeof WireErrorSchema>;

/** One message from the server; `id` echoes the request's. */
export const ServerMessageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("observation"),
    data: ObservationDataSchema,
    id: RequestIdSchema.optional(),
  }),
  z.object({ type: z.literal("state"), data: SessionStateSchema, id: RequestIdSchema.optional() }),
  z.object({ type: z.literal("reward"), data: RewardReportSchema, id: RequestIdSchema.optional() }),
  z.object({ type: z.literal("error"), data: WireErrorSchema, id: RequestIdSchema.optional() }),
]);
export type ServerMessage = z.infer<typeof ServerMessageSchema>;

/** The server's defaults, in one table (`rehearse serve --help` prints them). */
export const SERVE_DEFAULTS = {
  port: 8000,
  host: "127.0.0.1",
  /** Sessions (episodes in progress or kept for resume) at once. */
  maxSessions: 256,
  /** Bytes one frame may take (1 MiB). */
  maxFrameBytes: 1 << 20,
  /** Seconds a connection may stay silent, and a dropped connection's session stays resumable. */
  idleTtl: 600,
  /** Resets and steps one session may take per second (a burst of as many is allowed). */
  stepRate: 100,
  /** Finished episodes kept for `POST /v1/freeze` (the oldest give way, counted in the sidecar's warnings). */
  keepEpisodes: 10_000,
  /** Bytes of finished episodes' JSON lines kept for `POST /v1/freeze` (256 MiB; the oldest give way the same). */
  keepBytes: 256 << 20,
  /** Engine threads beside the main thread; 0 plays every episode on the main thread. */
  threads: 0,
} as const;

/** The options of `serve` and `rehearse serve`, checked before the server starts. */
export const ServeOptionsSchema = z.strictObject({
  port: z.int().min(0).max(65535, "expected a port from 0 to 65535").optional(),
  host: z.string().min(1, "expected a host name or address").optional(),
  /** Bearer token every WebSocket and HTTP request (but /health) must carry; none means open. */
  token: z.string().min(8, "expected a token of at least 8 characters").max(4096).optional(),
  maxSessions: z.int().min(1).max(100_000, "expected at most 100,000 sessions").optional(),
  maxFrameBytes: z
    .int()
    .min(1024, "expected at least 1024 bytes")
    .max(64 << 20, "expected at most 64 MiB")
    .optional(),
  idleTtl: z.number().positive("expected seconds above 0").max(86_400).optional(),
  stepRate: z.number().positive("expected steps per second above 0").max(1e9).optional(),
  keepEpisodes: z.int().min(1).max(1_000_000).optional(),
  keepBytes: z
    .int()
    .min(1 << 20, "expected at least 1 MiB (1048576 bytes)")
    .max(2 ** 36, "expected at most 64 GiB")
    .optional(),
  /** Situations planned for resets to deal from (`task_id`, `split`, `seed`). */
  rows: z.int().min(1).max(100_000, "expected at most 100,000 planned situations").optional(),
  seed: z.union([z.int().min(0), z.string().min(1)]).optional(),
  maxTurns: z.int().min(1).max(1000).optional(),
  /** The folder `POST /v1/freeze` writes datasets into. */
  freezeDir: z.string().min(1).optional(),
  /** Engine threads that play the episodes while the main thread keeps the sockets; 0 plays them on the main thread. */
  threads: z.int().min(0).max(256, "expected at most 256 engine threads").optional(),
});
export type ServeOptionsPlain = z.infer<typeof ServeOptionsSchema>;

/** `POST /v1/freeze`: the file name to write in the freeze folder, and whether to replace one. */
export const FreezeRequestSchema = z.strictObject({
  name: z
    .string()
    .regex(
      /^[\w.-]{1,200}\.jsonl$/,
      "expected a file name ending in .jsonl (letters, digits, _ . -)",
    )
    .refine((name) => !name.startsWith("."), "expected a name that does not start with a dot"),
  overwrite: z.boolean().optional(),
});
export type FreezeRequest = z.infer<typeof FreezeRequestSchema>;

/** What `POST /v1/freeze` wrote. */
export const FreezeResultSchema = z.object({
  path: z.string(),
  rows: z.int().min(0),
  sidecar: z.string(),
  dropped: z.int().min(0),
});
export type FreezeResult = z.infer<typeof FreezeResultSchema>;
