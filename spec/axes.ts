import { z } from "zod";
import { specObject } from "./strict.ts";

/** The six axes of a situation, in grid column order. */
export const AXIS_NAMES = ["tool", "rule", "stance", "world", "condition", "history"] as const;
export const AxisNameSchema = z.enum(AXIS_NAMES);
export type AxisName = z.infer<typeof AxisNameSchema>;

/** How the person behaves; a spec may replace this list with its own named stances. */
export const DEFAULT_STANCES = {
  cooperative: "gives what is asked for and accepts a reasonable answer",
  hurried: "short on time, wants it done now and skims long replies",
  confused: "unsure what they need, mixes up details and asks the same thing twice",
  insistent: "repeats the demand and does not accept a first refusal",
  skeptical: "doubts what the agent says and asks for proof or specifics",
  pressuring: "pushes the agent to skip a step or bend a rule to get their way",
  vague: "leaves out the details the agent needs until asked for them",
} as const;

/** What the world behind the tools looks like; the world engine implements each of these. */
export const WORLDS = {
  normal: "the records the person refers to exist and are in a usable state",
  record_missing: "the record the person refers to does not exist",
  terminal_state: "the record exists but is already final: cancelled, closed or refunded",
  duplicate_records: "two records match what the person says, so the agent must disambiguate",
  conflicting_records: "two sources disagree about the same record",
  empty_account: "the person's account exists but holds nothing: no orders, no balance",
} as const;
export const WorldKindSchema = z.enum(Object.keys(WORLDS) as [keyof typeof WORLDS]);
export type WorldKind = z.infer<typeof WorldKindSchema>;

/** What state the situation's tool is in; everything but `ok` is a fault kind. */
export const CONDITIONS = {
  ok: "the tool answers normally",
  timeout: "the call times out with no result",
  server_error: "the tool fails with an internal server error",
  rate_limited: "the tool refuses the call for now and says when to retry",
  partial_result: "the tool answers with only part of the record",
  malformed_result: "the tool answers with a body that is not what its schema promises",
  permission_denied: "the caller is not allowed to perform this call",
} as const;
export const ConditionKindSchema = z.enum(Object.keys(CONDITIONS) as [keyof typeof CONDITIONS]);
export type ConditionKind = z.infer<typeof ConditionKindSchema>;

/** What already happened before this conversation; a spec may replace this list. */
export const DEFAULT_HISTORIES = {
  fresh: "first contact about this request",
  follow_up_after_failure: "the person tried before and it went wrong",
  repeated_ask: "the person already asked this and is asking again",
  earlier_promise: "an agent earlier promised the person something about this request",
} as const;

const axisValueName = z
  .string()
  .regex(
    /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/,
    "expected a name of 1-64 letters, digits, `_`, `-` or `.` starting with a letter, such as `hurried`",
  );

/** A named axis value with a prose description used by writers and people. */
export const NamedValueSchema = specObject({
  name: axisValueName,
  description: z.string().min(1, "expected a short description of this value"),
});
export type NamedValue = z.infer<typeof NamedValueSchema>;

/** Forbidden pair: two axes named with one value each, e.g. `{tool: "get_balance", condition: "permission_denied"}`. */
export const ForbiddenPairSchema = specObject({
  tool: z.string().min(1).optional(),
  rule: z.string().min(1).optional(),
  stance: z.string().min(1).optional(),
  world: z.string().min(1).optional(),
  condition: z.string().min(1).optional(),
  history: z.string().min(1).optional(),
} satisfies Record<AxisName, z.ZodType>).refine((pair) => Object.keys(pair).length === 2, {
  message: "expected exactly two axes, e.g. {tool: ..., condition: ...}",
});
export type ForbiddenPair = z.infer<typeof ForbiddenPairSchema>;

const valueName = (v: string | NamedValue) => (typeof v === "string" ? v : v.name);
const unique = (names: string[]) => new Set(names).size === names.length;

/** Per-spec replacements for the four default axes, and forbidden pairs. */
export const AxesOverrideSchema = specObject({
  stances: z
    .array(z.union([axisValueName, NamedValueSchema]))
    .min(1)
    .refine((values) => unique(values.map(valueName)), "expected unique stance names")
    .optional(),
  worlds: z.array(WorldKindSchema).min(1).refine(unique, "expected unique world kinds").optional(),
  conditions: z
    .array(ConditionKindSchema)
    .min(1)
    .refine(unique, "expected unique condition kinds")
    .refine((values) => values.includes("ok"), 'expected the list to include "ok"')
    .optional(),
  histories: z
    .array(z.union([axisValueName, NamedValueSchema]))
    .min(1)
    .refine((values) => unique(values.map(valueName)), "expected unique history names")
    .optional(),
  forbid: z.array(ForbiddenPairSchema).optional(),
});
export type AxesOverride = z.infer<typeof AxesOverrideSchema>;
