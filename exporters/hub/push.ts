import { createHash } from "node:crypto";
import {
  canonicalJson,
  type Dataset,
  gradeReport,
  InputError,
  issuesOf,
  shownPath,
} from "../../env/index.ts";
import {
  type HubManifest,
  type HubPush,
  type HubSplit,
  type PushOptions,
  PushOptionsSchema,
  type Row,
  type SplitSource,
  type SplitSummary,
} from "../../spec/index.ts";
import { datasetCard, passRateText, splitPattern } from "./card.ts";
import { MANIFEST_PATH, manifestBytes, notOurs, readManifest } from "./manifest.ts";
import { openRepo } from "./open.ts";
import { rowsToParquet } from "./row-parquet.ts";
import type { RepoFile } from "./target.ts";

/** What a push did: the commit it made, the split's figures, and the revision it replaced. */
export interface PushResult {
  repo: string;
  split: HubSplit;
  /** The new commit. */
  revision: string;
  /** The commit that held the split before, or null for its first push. */
  replaced: string | null;
  summary: SplitSummary;
  files: string[];
}

/**
 * Pushes a dataset as one split of a dataset repository (a local git repository, or
 * `hf://datasets/<owner>/<name>` on the Hub): Parquet parts, the run's sidecar, the dataset card and
 * `rehearse.json`, in one commit that replaces the split's old parts and names the delta.
 */
export async function pushToHub(data: Dataset, options: PushOptions): Promise<PushResult> {
  const parsed = PushOptionsSchema.safeParse(options);
  if (!parsed.success) throw new InputError("push options", issuesOf(parsed.error, options));
  const { repo, split, branch, hubUrl, token, rowsPerPart } = parsed.data;
  const { target, name } = openRepo(repo, {
    ...(hubUrl ? { hubUrl } : {}),
    ...(token ? { token } : {}),
  });
  const parent = await target.head(branch);
  const before: HubManifest | null = parent ? await readManifest(target, parent) : null;
  if (parent && !before) throw notOurs(target, parent);
  const manifest: HubManifest = before ?? {
    format: "rehearse-dataset",
    version: 1,
    splits: {},
    history: [],
  };

  const rows = await data.rows();
  const summary = summarise(rows);
  const source: SplitSource = {
    path: data.path ? shownPath(data.path) : null,
    rows_sha256: rowsHash(rows),
    spec_hash: data.meta?.spec_hash ?? null,
    generator: data.meta?.generator ?? null,
  };
  const parts = partsOf(rows, rowsPerPart).map(
    (part, index, all): RepoFile => ({
      path: splitPattern(split).replace("*", `${pad(index)}-of-${pad(all.length)}`),
      content: rowsToParquet(part),
    }),
  );
  const metaFile = data.meta ? `meta/${split}.json` : null;
  const old = manifest.splits[split] ?? null;
  const push: HubPush = {
    split,
    source,
    summary,
    replaced: old && parent ? { revision: parent, source: old.source, summary: old.summary } : null,
  };
  const after: HubManifest = {
    ...manifest,
    splits: {
      ...manifest.splits,
      [split]: {
        source,
        summary,
        files: parts.map((part) => part.path),
        meta_file: metaFile,
        push: manifest.history.length,
      },
    },
    history: [...manifest.history, push],
  };
  const written = new Set(parts.map((part) => part.path));
  if (metaFile) written.add(metaFile);
  const deletions = [...(old?.files ?? []), ...(old?.meta_file ? [old.meta_file] : [])].filter(
    (path) => !written.has(path),
  );
  const encoder = new TextEncoder();
  const files: RepoFile[] = [
    ...parts,
    ...(metaFile && data.meta
      ? [{ path: metaFile, content: encoder.encode(`${JSON.stringify(data.meta, null, 2)}\n`) }]
      : []),
    { path: MANIFEST_PATH, content: manifestBytes(after) },
    { path: "README.md", content: encoder.encode(datasetCard(name, after)) },
  ];
  const revision = await target.commit(branch, {
    title: commitTitle(split, summary, old?.summary ?? null),
    description: commitDescription(split, source, summary, old?.summary ?? null),
    files,
    deletions,
    parent,
  });
  return {
    repo: target.name,
    split,
    revision,
    replaced: push.replaced?.revision ?? null,
    summary,
    files: files.map((file) => file.path),
  };
}

/** The figures a push records: rows, how many are graded, the pass rate (as `rehearse grade` counts it), situations. */
export function summarise(rows: readonly Row[]): SplitSummary {
  const report = gradeReport([...rows]);
  return {
    rows: rows.length,
    graded: report.graded,
    pass_rate: report.pass_rate,
    support: new Set(rows.map((row) => row.task_id)).size,
  };
}

/** sha256 over the rows as canonical JSON lines: the same rows hash the same whatever their key order. */
export function rowsHash(rows: readonly Row[]): string {
  const hash = createHash("sha256");
  for (const row of rows) hash.update(`${canonicalJson(row)}\n`);
  return hash.digest("hex");
}

function partsOf(rows: readonly Row[], size: number): Row[][] {
  const parts: Row[][] = [];
  for (let start = 0; start < rows.length; start += size)
    parts.push(rows.slice(start, start + size));
  return parts.length > 0 ? parts : [[]];
}

function pad(n: number): string {
  return String(n).padStart(5, "0");
}

function commitTitle(split: HubSplit, now: SplitSummary, was: SplitSummary | null): string {
  const delta = (figure: string, before: string) => (was ? `${figure} (was ${before})` : figure);
  return [
    `${split}: ${delta(`${now.rows} rows`, String(was?.rows))}`,
    `pass rate ${delta(passRateText(now.pass_rate), was ? passRateText(was.pass_rate) : "")}`,
    `support ${delta(String(now.support), String(was?.support))}`,
  ].join(", ");
}

function commitDescription(
  split: HubSplit,
  source: SplitSource,
  now: SplitSummary,
  was: SplitSummary | null,
): string {
  return [
    `Split ${split} from ${source.path ?? "rows in memory"} (rows sha256 ${source.rows_sha256}).`,
    `Graded ${now.graded} of ${now.rows} rows.`,
    was
      ? `Replaces ${was.rows} rows (pass rate ${passRateText(was.pass_rate)}, support ${was.support}).`
      : "First push of this split.",
  ].join("\n");
}
