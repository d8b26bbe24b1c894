import { stat } from "node:fs/promises";
import type {
  Coverage,
  DatasetMeta,
  DatasetSearch,
  Degraded,
  GradeReport,
  Label,
  Quality,
  Row,
} from "../spec/index.ts";
import { Agent } from "./agent.ts";
import { attachLabels } from "./grade/agreement.ts";
import { type GradeOptions, gradeRows } from "./grade/grade.ts";
import { gradeReport } from "./grade/report.ts";
import { datasetPaths, readMeta, readRows, writeDataset } from "./jsonl.ts";
import type { RunSummary } from "./run-tally.ts";
import { type SftRow, type TrainingSetOptions, trainingRows } from "./training.ts";
import { InputError } from "./util/errors.ts";

/**
 * The result of a run: its rows (in memory, or streamed from the JSONL file it was written to),
 * and what the run says about itself — coverage, substitutions, warnings, the search report.
 */
export class Dataset {
  /** The JSONL file holding the rows, when they were written to one. */
  readonly path: string | null;
  /** The run's sidecar: spec, options, coverage, degraded, warnings, search. Null for a bare JSONL file. */
  readonly meta: DatasetMeta | null;
  /** How the run's conversations ended, counted as it wrote them; null for a dataset loaded from a file. */
  readonly summary: RunSummary | null;
  #rows: Row[] | null;

  constructor(options: {
    rows?: Row[];
    path?: string;
    meta: DatasetMeta | null;
    summary?: RunSummary;
  }) {
    this.path = options.path ?? null;
    this.meta = options.meta;
    this.summary = options.summary ?? null;
    this.#rows = options.rows ?? null;
    if (this.#rows === null && this.path === null)
      throw new Error("Dataset: expected rows or a path");
  }

  /** Every row, read from the file on first use when the dataset lives on disk. For large files prefer {@link Dataset.stream}. */
  async rows(): Promise<Row[]> {
    if (this.#rows) return this.#rows;
    const rows: Row[] = [];
    for await (const row of this.stream()) rows.push(row);
    this.#rows = rows;
    return rows;
  }

  /**
   * The rows one at a time, without holding them all. Read to its end, a file whose sidecar says it
   * is complete must hold as many rows as the sidecar says: one cut or edited since is refused, not
   * taken for the whole dataset.
   */
  async *stream(): AsyncGenerator<Row> {
    if (this.#rows) {
      yield* this.#rows;
      return;
    }
    const path = this.path as string;
    let count = 0;
    for await (const row of readRows(path, { tornTail: path.endsWith(".partial") })) {
      count++;
      yield row;
    }
    const promised = this.meta?.complete ? this.meta.rows : null;
    if (promised !== null && count !== promised)
      throw new InputError(path, [
        {
          path: "",
          message: `holds ${count} rows, but its sidecar (${datasetPaths(path).meta}) says ${promised}: the file was cut or edited after it was written`,
        },
      ]);
  }

  /** Pairwise coverage of the six-axis grid, counted on the rows the run made. */
  get coverage(): Coverage | null {
    return this.meta?.coverage ?? null;
  }

  /** Substitutions the run made (`same_model`, `generator_fallback`); empty when none. */
  get degraded(): Degraded {
    return this.meta?.degraded ?? {};
  }

  /** The run's measures of its own data (`data.quality` in the sidecar), or null for files without one. */
  get quality(): Quality | null {
    return this.meta?.quality ?? null;
  }

  get warnings(): string[] {
    return this.meta?.warnings ?? [];
  }

  /**
   * The search report: row budget, mutations and the writer's errors (`status: "recorded"`), or,
   * for rows with no sidecar, `status: "unrecorded"` with the reason: those figures are not known.
   */
  get search(): DatasetSearch {
    if (this.meta) return { status: "recorded", ...this.meta.search };
    return {
      status: "unrecorded",
      reason:
        "no sidecar (.meta.json) came with these rows, so the run's budget, mutations and writer errors are not known",
    };
  }

  /**
   * Grades every row with your grader function (`{grader, judge, version}`) or a judge backend
   * (`{spec}`), in place, and returns the grade report. Rows held on disk are read first; call
   * {@link Dataset.save} to write the graded rows.
   */
  async grade(options: GradeOptions): Promise<GradeReport> {
    return gradeRows(await this.rows(), options);
  }

  /** Attaches labels (e.g. hand labels, `{kind: "human"}`) to rows by id; returns how many. */
  async attachLabels(
    labels: readonly unknown[],
    options: { kind: Label["kind"] },
  ): Promise<number> {
    return attachLabels(await this.rows(), labels, options);
  }

  /** The grade report of the rows as they are now. */
  async report(): Promise<GradeReport> {
    return gradeReport(await this.rows());
  }

  /**
   * The supervised training set (the brief's `data.training_set()`): TRL conversational rows
   * (`messages`, `tools`) with a `loss_mask`, from passing rows only unless `passing: false`.
   */
  async trainingSet(options: TrainingSetOptions = {}): Promise<SftRow[]> {
    return trainingRows(await this.rows(), options);
  }

  /** The agent spec the rows were made from, from the sidecar. */
  agent(): Agent | null {
    return this.meta ? Agent.from(this.meta.spec) : null;
  }

  /** Writes the rows (and the sidecar) to `path`, or back where they came from, replacing the old file only when the new one is whole. */
  async save(path = this.path): Promise<Dataset> {
    if (!path) throw new Error("Dataset.save: expected a path for a dataset that lives in memory");
    const rows = await this.rows();
    // The sidecar counts the rows written: rows taken out or added in memory since the run are
    // not a cut file the next read should refuse.
    const meta = this.meta ? { ...this.meta, rows: rows.length } : null;
    await writeDataset(path, rows, meta);
    return new Dataset({ rows, path, meta });
  }

  /** Number of rows (from the sidecar when on disk). */
  get size(): number {
    return this.#rows?.length ?? this.meta?.rows ?? 0;
  }
}

/** Opens a dataset written by `simulate` (its `.meta.json` sidecar is read when present); rows are read lazily. */
export async function loadDataset(path: string): Promise<Dataset> {
  const paths = datasetPaths(path.replace(/\.partial$/, ""));
  const meta = await readMeta(path.endsWith(".partial") ? paths.partialMeta : paths.meta);
  const readable = await stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
  if (!readable)
    throw new InputError(path, [
      { path: "", message: "cannot read the file: it does not exist or is not a file" },
    ]);
  // A partial file's sidecar cannot know how many rows a killed run got to write: count them.
  const counted = meta && !meta.complete ? { ...meta, rows: await countRows(path) } : meta;
  const dataset = new Dataset({ path, meta: counted });
  // Touch the first row so that a missing or unreadable file fails here, not later.
  const first = dataset.stream();
  await first.next();
  await first.return(undefined);
  return dataset;
}

async function countRows(path: string): Promise<number> {
  let n = 0;
  for await (const _row of readRows(path, { tornTail: true })) n++;
  return n;
}
