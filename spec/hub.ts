import { z } from "zod";

/** The splits a dataset repository holds: what trains, what is held out of training, what evaluates. */
export const HUB_SPLITS = ["train", "holdout", "eval"] as const;
export const HubSplitSchema = z.enum(HUB_SPLITS, {
  error: `expected one of the splits ${HUB_SPLITS.join(", ")}`,
});
export type HubSplit = z.infer<typeof HubSplitSchema>;

/** The prefix that names a repository on the Hugging Face Hub; any other address is a local git repository. */
export const HF_DATASET_PREFIX = "hf://datasets/";

/** What a split holds, measured when it was pushed: the figures a commit message compares. */
export const SplitSummarySchema = z.object({
  rows: z.int().min(0),
  /** Rows with a reward. */
  graded: z.int().min(0),
  /** Share of graded rows that passed; null when no row is graded. */
  pass_rate: z.number().min(0).max(1).nullable(),
  /** Distinct situations (task ids) among the rows. */
  support: z.int().min(0),
});
export type SplitSummary = z.infer<typeof SplitSummarySchema>;

/** Where a pushed split came from: the dataset, the spec that made it, and a hash of its rows. */
export const SplitSourceSchema = z.object({
  /** The dataset's file as the pusher named it, or null for rows held in memory. */
  path: z.string().nullable(),
  /** sha256 of the rows as JSON lines, checked again when the split is loaded. */
  rows_sha256: z.string(),
  spec_hash: z.string().nullable(),
  generator: z.string().nullable(),
});
export type SplitSource = z.infer<typeof SplitSourceSchema>;

/** One split as the repository holds it now. */
export const HubSplitEntrySchema = z.object({
  source: SplitSourceSchema,
  summary: SplitSummarySchema,
  /** The Parquet parts, in row order. */
  files: z.array(z.string()),
  /** The run's sidecar (coverage, quality, degraded, warnings), or null when the dataset had none. */
  meta_file: z.string().nullable(),
  /** Index in `history` of the push that wrote it. */
  push: z.int().min(0),
});
export type HubSplitEntry = z.infer<typeof HubSplitEntrySchema>;

/** One push, in order: what it wrote and what it replaced. */
export const HubPushSchema = z.object({
  split: HubSplitSchema,
  source: SplitSourceSchema,
  summary: SplitSummarySchema,
  /** The split this push replaced, and the revision that held it; null for a split's first push. */
  replaced: z
    .object({
      revision: z.string(),
      source: SplitSourceSchema,
      summary: SplitSummarySchema,
    })
    .nullable(),
});
export type HubPush = z.infer<typeof HubPushSchema>;

/** `rehearse.json` at a dataset repository's root: the splits it holds and every push that made them. */
export const HubManifestSchema = z.strictObject({
  format: z.literal("rehearse-dataset"),
  version: z.literal(1),
  splits: z.partialRecord(HubSplitSchema, HubSplitEntrySchema),
  history: z.array(HubPushSchema),
});
export type HubManifest = z.infer<typeof HubManifestSchema>;

const text = (message: string) => z.string({ error: message }).min(1, { error: message });

/** Options of `pushToHub`: the repository, the split, and how to reach the Hub. */
export const PushOptionsSchema = z.strictObject({
  /** A local git repository's path, or `hf://datasets/<owner>/<name>` for the Hugging Face Hub. */
  repo: text("expected a local repository path or hf://datasets/<owner>/<name>"),
  split: HubSplitSchema,
  /** The branch pushed to. */
  branch: text("expected a branch name").default("main"),
  /** The Hub's address (a mirror, or a local server in tests). */
  hubUrl: z.url({ error: "expected an http(s) URL" }).optional(),
  /** The Hub token; `HF_TOKEN` when absent. */
  token: z.string().optional(),
  /** Rows in each Parquet part. */
  rowsPerPart: z.int().min(1).max(1_000_000).default(50_000),
});
export type PushOptions = z.input<typeof PushOptionsSchema>;

/** Options of `loadFromHub`: which push to load and how to reach the Hub. */
export const LoadOptionsSchema = z.strictObject({
  /** A commit id, a branch or a tag; the branch's newest commit when absent. */
  revision: text("expected a commit id, branch or tag").optional(),
  hubUrl: z.url({ error: "expected an http(s) URL" }).optional(),
  token: z.string().optional(),
});
export type LoadOptions = z.input<typeof LoadOptionsSchema>;

/** `rehearse push` flags: the dataset file is the argument; the Hub token comes from HF_TOKEN only. */
export const PushCommandOptionsSchema = PushOptionsSchema.omit({ token: true });

/** `rehearse pull` flags: the repository is the argument. */
export const PullCommandOptionsSchema = LoadOptionsSchema.omit({ token: true }).extend({
  split: HubSplitSchema,
  /** Where to write the rows and their sidecar; without it the split is measured and printed only. */
  out: text("expected a file path").optional(),
  /** Replace `out` if it exists (without it, an existing file is refused). */
  overwrite: z.boolean().optional(),
});
