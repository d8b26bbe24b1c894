import { z } from "zod";

/** The failure vocabulary: what a failing row's `failure_class` is chosen from. */
export const FAILURE_CLASSES = [
  "unbacked_action_claim",
  "unknown_identifier",
  "success_after_failure",
  "skipped_confirmation",
  "policy_violation",
  "wrong_tool",
  "wrong_arguments",
  "premature_handoff",
  "incorrect_information",
  "unhelpful",
  "other",
] as const;
export const FailureClassSchema = z.enum(FAILURE_CLASSES);
export type FailureClass = z.infer<typeof FailureClassSchema>;

/** The deterministic conduct checks on the agent. */
export const CONDUCT_CHECKS = [
  "unbacked_action_claim",
  "unknown_identifier",
  "success_after_failure",
] as const;
export const ConductCheckSchema = z.enum(CONDUCT_CHECKS);

/** The checks on the simulated person, whose mistakes must not be blamed on the agent. */
export const SIM_CHECKS = [
  "ended_before_action",
  "stated_unheld_details",
  "broke_character",
  "satisfied_without_outcome",
] as const;
export const SimCheckSchema = z.enum(SIM_CHECKS);

/** What a check found, where: the message index, its text, and the call or value involved. */
export const EvidenceSchema = z.object({
  message: z.int().min(0),
  text: z.string(),
  call: z.object({ name: z.string(), arguments: z.string() }).optional(),
  value: z.string().optional(),
});

export const ConductFindingSchema = z.object({
  check: ConductCheckSchema,
  detail: z.string(),
  evidence: EvidenceSchema,
});
export type ConductFinding = z.infer<typeof ConductFindingSchema>;

export const SimFindingSchema = z.object({
  check: SimCheckSchema,
  detail: z.string(),
  evidence: EvidenceSchema,
});
export type SimFinding = z.infer<typeof SimFindingSchema>;

/** Who made a label: the judge, its version, the model, a hash of its rubric, its settings. */
export const JudgeMetaSchema = z.object({
  judge: z.string(),
  version: z.string(),
  model: z.string().nullable(),
  rubric_hash: z.string().nullable(),
  settings: z.record(z.string(), z.unknown()),
  confidence: z.number().min(0).max(1).optional(),
  unsure: z.boolean().optional(),
});
export type JudgeMeta = z.infer<typeof JudgeMetaSchema>;

/** A reward on the scale every pass threshold and agreement figure assumes: 0 (fail) to 1 (pass). */
export const RewardSchema = z
  .number()
  .min(0, "expected a reward from 0 to 1")
  .max(1, "expected a reward from 0 to 1");

/** One check a grade rests on, with what it saw. */
export const CheckSchema = z.object({
  name: z.string(),
  passed: z.boolean(),
  detail: z.string(),
});
export type Check = z.infer<typeof CheckSchema>;

/**
 * The one shape every grade takes: the episode's own reward, the customer's grader, every judge
 * (a decision judge's `reward` is its probability of pass). `failure_class` names why a failing
 * one failed; `checks` are what it rests on, when it has them.
 */
export const GradeSchema = z.object({
  reward: RewardSchema,
  reason: z.string(),
  failure_class: FailureClassSchema.optional(),
  checks: z.array(CheckSchema).optional(),
});
export type Grade = z.infer<typeof GradeSchema>;
/** A grade that shows the checks it rests on (the episode's own reward always does). */
export type CheckedGrade = Grade & { checks: Check[] };

/** A label attached to a row by someone other than the grader of record (a human, an auditor). */
export const LabelSchema = z.object({
  kind: z.enum(["human", "judge", "audit"]),
  reward: RewardSchema,
  failure_class: FailureClassSchema.optional(),
  by: z.string().optional(),
  note: z.string().optional(),
});
export type Label = z.infer<typeof LabelSchema>;

/** Judge agreement with gold labels that say who made them. */
export const AgreementSchema = z.object({
  n: z.int().min(0),
  agreement: z.number().nullable(),
  /** Cohen's kappa; null (with `kappa_note`) when one class only makes it undefined. */
  kappa: z.number().nullable(),
  kappa_note: z.string().optional(),
  pass_when_gold_fail: z.number().nullable(),
  fail_when_gold_pass: z.number().nullable(),
  confusion: z.object({
    pass_pass: z.int(),
    pass_fail: z.int(),
    fail_pass: z.int(),
    fail_fail: z.int(),
  }),
  /** Rows whose gold reward has no record of who made it: not counted as agreement. */
  unmeasured: z.int().min(0),
});
export type Agreement = z.infer<typeof AgreementSchema>;

/** The publish gate's stamp on an export: the judge's calibration, or that it was never measured. */
export const CalibrationSchema = z.union([
  z.object({
    status: z.literal("measured"),
    judge: z.string(),
    n: z.int(),
    agreement: z.number().nullable(),
    kappa: z.number().nullable(),
    pass_when_gold_fail: z.number().nullable(),
    fail_when_gold_pass: z.number().nullable(),
  }),
  z.object({ status: z.literal("unmeasured"), judge: z.string().nullable(), reason: z.string() }),
]);
export type Calibration = z.infer<typeof CalibrationSchema>;

/** The grade report: pass rates, failures, unsure rows, simulator faults, and agreement when labels exist. */
export const GradeReportSchema = z.object({
  rows: z.int().min(0),
  graded: z.int().min(0),
  ungraded: z.int().min(0),
  /** Rows left out of the agent's figures because the simulated person was at fault. */
  sim_faults: z.int().min(0),
  pass_rate: z.number().nullable(),
  /** tau-bench's pass^k: per situation C(successes, k) / C(trials, k), averaged; k = 1 is pass@1. */
  pass_hat_k: z.record(z.string(), z.number()),
  /** How many situations each k of pass^k averages over (those with at least k graded trials). */
  pass_hat_k_situations: z.record(z.string(), z.int().min(0)),
  failure_classes: z.record(z.string(), z.int()),
  conduct: z.record(z.string(), z.int()),
  unsure: z.int().min(0),
  judges: z.array(z.string()),
  agreement: AgreementSchema.nullable(),
  calibration: CalibrationSchema,
  errors: z.array(z.object({ row: z.string(), error: z.string() })),
  warnings: z.array(z.string()),
});
export type GradeReport = z.infer<typeof GradeReportSchema>;
