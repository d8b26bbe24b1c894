import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import type { DatasetMeta } from "../spec/index.ts";
import { Agent } from "./agent.ts";
import { Dataset } from "./dataset.ts";
import { rowId } from "./episode.ts";
import {
  checkDatasetOutput,
  datasetPaths,
  parseRow,
  REBUILT,
  readMeta,
  writeDatasetLines,
} from "./jsonl.ts";
import { Planner } from "./plan.ts";
import { RunTally, sidecarOf } from "./run-tally.ts";
import { shardOf } from "./shard.ts";
import { InputError, type InputIssue } from "./util/errors.ts";
import { canonicalJson } from "./util/hash.ts";

/** Where the merged dataset goes. */
export interface MergeOptions {
  out: string;
  /** Replace an existing `out` once the merged file is whole. */
  overwrite?: boolean;
  /** How refusals name the options: SDK options (`out`) or CLI flags (`--out`). */
  style?: "options" | "flags";
}

/** A shard file and its sidecar. */
interface ShardFile {
  path: string;
  meta: DatasetMeta & { shard: NonNullable<DatasetMeta["shard"]> };
}

/**
 * Joins the files of a sharded run (`simulate --shard i/n`) into the dataset one machine would
 * have written: the rows of shard 0, 1, … in order, copied byte for byte, and the sidecar counted
 * from them as the run would have (coverage, quality, degraded, warnings). Refused, before anything
 * is written, unless every file is a finished shard of the same spec, options, seed and shard count,
 * each shard present exactly once.
 *
 * @example
 * await mergeShards(["part-0.jsonl", "part-1.jsonl"], { out: "data.jsonl" });
 */
export async function mergeShards(
  paths: readonly string[],
  options: MergeOptions,
): Promise<Dataset> {
  const what = "merge";
  if (paths.length === 0)
    throw new InputError(what, [{ path: "shards", message: "expected at least one shard file" }]);
  const shards = await Promise.all(paths.map(readShard));
  const ordered = inOrder(shards);
  const first = ordered[0] as ShardFile;
  await checkDatasetOutput(options.out, {
    what,
    style: options.style ?? "options",
    reads: paths.flatMap((path) => [path, datasetPaths(path).meta]),
    resume: false,
    overwrite: options.overwrite === true,
  });
  const agent = Agent.from(first.meta.spec);
  const tally = new RunTally(agent, first.meta.shard.run.logprobs);
  const kept: string[] = [];
  for (const shard of ordered)
    kept.push(...shard.meta.warnings.filter((w) => w.startsWith(REBUILT)));
  const total = first.meta.options.rows * first.meta.options.rollouts;
  const meta = () =>
    sidecarOf(
      {
        generator: first.meta.generator,
        spec: first.meta.spec,
        specHash: first.meta.spec_hash,
        options: first.meta.options,
        rows: total,
        complete: true,
        run: first.meta.shard.run,
        kept,
      },
      tally,
    );
  // A run whose rows went where traces said cannot be planned again here: its ids are checked unique only.
  const planned = first.meta.shard.run.search?.allocation
    ? null
    : plannedIds(agent, first.meta.options);
  await writeDatasetLines(options.out, linesOf(ordered, tally, planned), meta);
  const merged = meta();
  return new Dataset({ path: options.out, meta: merged, summary: tally.summary() });
}

/**
 * Every shard's lines in shard order, each row counted as it goes by. A shard whose rows disagree
 * with its sidecar is refused: another count, or a row that is not the one the run planned at its
 * place (a row deleted and another doubled, rows swapped or taken from another run), or when the
 * plan cannot be made again, a row id seen before.
 */
async function* linesOf(
  shards: readonly ShardFile[],
  tally: RunTally,
  planned: Iterator<string> | null,
): AsyncGenerator<string> {
  const seen = new Set<string>();
  for (const { path, meta } of shards) {
    let rows = 0;
    let number = 0;
    const lines = createInterface({
      input: createReadStream(path, "utf8"),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const text of lines) {
      number++;
      if (text.trim() === "") continue;
      const row = parseRow(text, path, number);
      const refuse = (message: string) =>
        new InputError(what(path), [{ path: `row ${rows + 1} (line ${number})`, message }]);
      if (planned) {
        const next = planned.next();
        const expected = next.done ? undefined : next.value;
        if (row.id !== expected)
          throw refuse(`holds ${row.id}, but the run planned ${expected ?? "no more rows"} there`);
      } else if (seen.has(row.id)) throw refuse(`holds ${row.id}, which an earlier row holds too`);
      else seen.add(row.id);
      tally.add(row);
      rows++;
      yield `${text}\n`;
    }
    if (rows !== meta.rows)
      throw new InputError(what(path), [
        { path: "", message: `holds ${rows} rows, but its sidecar says ${meta.rows}` },
      ]);
  }
}

const what = (path: string) => `merge: ${path}`;

/** The row ids a run of these options plans, in order: each situation's rollouts in a row, as `simulate` plays them. */
function* plannedIds(agent: Agent, options: DatasetMeta["options"]): Generator<string> {
  const plan = new Planner(agent, {
    rows: options.rows,
    seed: options.seed,
    faultRate: options.fault_rate,
    preferSuccess: options.prefer_success,
  });
  for (const situation of plan.walk())
    for (let rollout = 0; rollout < options.rollouts; rollout++) yield rowId(situation, rollout);
}

/** A shard file's sidecar, refused unless it is a finished shard whose rows file is there. */
async function readShard(path: string): Promise<ShardFile> {
  const refuse = (message: string) => new InputError(what(path), [{ path: "", message }]);
  const found = await stat(path).catch(() => null);
  if (!found?.isFile()) {
    const partial = await stat(datasetPaths(path).partial).catch(() => null);
    if (partial?.isFile())
      throw refuse(
        `is an unfinished shard: only ${datasetPaths(path).partial} exists; finish it with --resume first`,
      );
    throw refuse(found ? "is not a file" : "does not exist");
  }
  const meta = await readMeta(datasetPaths(path).meta);
  if (!meta)
    throw refuse(
      `has no sidecar (${datasetPaths(path).meta}): the sidecar says which shard a file holds`,
    );
  if (!meta.shard)
    throw refuse("is not a shard: its sidecar has no shard block (it was made without --shard)");
  if (!meta.complete) throw refuse("is an unfinished shard: finish it with --resume first");
  const { index, count, first, end } = meta.shard;
  const expected = shardOf({ index, count }, meta.options.rows * meta.options.rollouts);
  if (first !== expected.first || end !== expected.end || meta.rows !== end - first)
    throw refuse(
      `shard ${index}/${count} should hold episodes ${expected.first} to ${expected.end}, but its sidecar says ${first} to ${end} with ${meta.rows} rows`,
    );
  return { path, meta: meta as ShardFile["meta"] };
}

/**
 * The shards in index order, once each are checked to come from one run: the same generator, spec,
 * options (seed included), shard count and run-wide parts, every index present exactly once.
 */
function inOrder(shards: readonly ShardFile[]): ShardFile[] {
  const [head] = shards as [ShardFile];
  const problems: InputIssue[] = [];
  const same = (field: string, of: (meta: ShardFile["meta"]) => unknown) => {
    const want = canonicalJson(of(head.meta));
    for (const shard of shards.slice(1))
      if (canonicalJson(of(shard.meta)) !== want)
        problems.push({
          path: field,
          message: `${shard.path} has ${canonicalJson(of(shard.meta))}, but ${head.path} has ${want}: the shards come from different runs`,
        });
  };
  same("generator", (m) => m.generator);
  same("spec_hash", (m) => m.spec_hash);
  same("options", (m) => m.options);
  same("shard.count", (m) => m.shard.count);
  same("shard.run", (m) => m.shard.run);
  if (problems.length > 0) throw new InputError("merge", problems);
  const count = head.meta.shard.count;
  const byIndex = new Map<number, ShardFile>();
  for (const shard of shards) {
    const twin = byIndex.get(shard.meta.shard.index);
    if (twin)
      problems.push({
        path: "shards",
        message: `shard ${shard.meta.shard.index}/${count} is given twice: ${twin.path} and ${shard.path}`,
      });
    else byIndex.set(shard.meta.shard.index, shard);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0)
    problems.push({
      path: "shards",
      message: `missing shard${missing.length > 1 ? "s" : ""} ${missing.slice(0, 20).join(", ")}${missing.length > 20 ? ", …" : ""} of ${count}`,
    });
  if (problems.length > 0) throw new InputError("merge", problems);
  return Array.from({ length: count }, (_, i) => byIndex.get(i) as ShardFile);
}
