import { z } from "zod";

/** The pass rates a situation must lie within to be kept: neither always solved nor never. */
export const DIFFICULTY_BAND = [0.2, 0.8] as const;

const ENV_ID = /^[a-z][a-z0-9-]{0,62}[a-z0-9]$/;

/** Options of `exportEnvironment`: the package's name and version, its reward, and the band. */
export const EnvironmentExportOptionsSchema = z.strictObject({
  /** The environment id (dashed); the module and folder take it with underscores. */
  name: z
    .string()
    .regex(ENV_ID, "expected lower-case letters, digits and dashes, starting with a letter")
    .optional(),
  version: z
    .string()
    .regex(/^\d+\.\d+\.\d+$/, "expected a version such as 0.1.0")
    .default("0.1.0"),
  description: z.string().min(1).max(500).optional(),
  /**
   * What the rubric reads: `episode` is the server's own reward (the outcome and conduct checks);
   * a grader module's path makes the server grade each episode with it (`rehearse serve --grader`).
   */
  reward: z
    .union([z.literal("episode"), z.strictObject({ grader: z.string().min(1) })])
    .default("episode"),
  /** Keep situations whose graded pass rate lies in [low, high]; null keeps every situation. */
  band: z
    .tuple([z.number().min(0).max(1), z.number().min(0).max(1)])
    .refine(([low, high]) => low <= high, "expected [low, high] with low ≤ high")
    .nullable()
    .default([...DIFFICULTY_BAND]),
  /** Replace a folder that already holds an exported environment. */
  overwrite: z.boolean().default(false),
});
export type EnvironmentExportOptions = z.input<typeof EnvironmentExportOptionsSchema>;

/** `rehearse export env` flags: `--band 0.2,0.8` or `--no-band`, `--grader` for the server's reward. */
export const EnvironmentExportCommandOptionsSchema = EnvironmentExportOptionsSchema.omit({
  reward: true,
  band: true,
}).extend({
  in: z.string().min(1, "expected a dataset file"),
  out: z.string().min(1, "expected a folder for the package"),
  band: z
    .string()
    .regex(
      /^\s*(0(\.\d+)?|1(\.0+)?)\s*,\s*(0(\.\d+)?|1(\.0+)?)\s*$/,
      "expected low,high such as 0.2,0.8",
    )
    .transform((text) => text.split(",").map(Number) as [number, number])
    .refine(([low, high]) => low <= high, "expected low ≤ high")
    .optional(),
  noBand: z.boolean().optional(),
  grader: z.string().min(1, "expected a grader module's path").optional(),
});
