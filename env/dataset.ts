import type { Coverage, DatasetMeta, Degraded, Row } from "../spec/index.ts";
import { datasetPaths, readMeta, readRows } from "./jsonl.ts";

/**
 * The result of a run: its rows (in memory, or streamed from the JSONL file it was written to),
 * and what the run says about itself — coverage, substitutions, warnings, the search report.
 */
export class Dataset {
  /** The JSONL file holding the rows, when they were written to one. */
  readonly path: string | null;
  /** The run's sidecar: spec, options, coverage, degraded, warnings, search. Null for a bare JSONL file. */
  readonly meta: DatasetMeta | null;
  #rows: Row[] | null;

  constructor(options: { rows?: Row[]; path?: string; meta: DatasetMeta | null }) {
    this.path = options.path ?? null;
    this.meta = options.meta;
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

  /** The rows one at a time, without holding them all. */
  async *stream(): AsyncGenerator<Row> {
    if (this.#rows) {
      yield* this.#rows;
      return;
    }
    yield* readRows(this.path as string, { tornTail: (this.path as string).endsWith(".partial") });
  }

  /** Pairwise coverage of the six-axis grid, counted on the rows the run made. */
  get coverage(): Coverage | null {
    return this.meta?.coverage ?? null;
  }

  /** Substitutions the run made (`same_model`, `generator_fallback`); empty when none. */
  get degraded(): Degraded {
    return this.meta?.degraded ?? {};
  }

  get warnings(): string[] {
    return this.meta?.warnings ?? [];
  }

  /** The search report: row budget, mutations, and the writer's errors. */
  get search(): DatasetMeta["search"] | null {
    return this.meta?.search ?? null;
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
  const dataset = new Dataset({ path, meta });
  // Touch the first row so that a missing or unreadable file fails here, not later.
  const first = dataset.stream();
  await first.next();
  await first.return(undefined);
  return dataset;
}
