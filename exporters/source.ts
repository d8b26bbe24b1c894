import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { calibrationStamp, type Dataset } from "../env/index.ts";
import type { Calibration, Row } from "../spec/index.ts";

/** What an export reads: a Dataset (in memory or on disk), rows, or rows as they are made. */
export type ExportSource = Dataset | readonly Row[] | AsyncIterable<Row>;

/** Where the rows came from, for the sidecar: the file and a hash of what was read. */
export interface SourceFacts {
  path: string | null;
  sha256: string;
  rows: number;
}

/** The file a source was read from, or null for rows held or made in memory. */
export function sourcePath(source: ExportSource): string | null {
  return "stream" in source && typeof source.stream === "function" ? source.path : null;
}

/** The rows of a source one at a time, without holding a file's rows. */
export async function* rowsOf(source: ExportSource): AsyncGenerator<Row> {
  if ("stream" in source && typeof source.stream === "function") yield* source.stream();
  else yield* source as readonly Row[] | AsyncIterable<Row>;
}

/** sha256 of a file's bytes, read as a stream. */
async function fileHash(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/**
 * Follows the rows an export reads: counts them, hashes them (the file's bytes when the source is
 * a file, else the rows as JSON lines), and keeps what the calibration stamp reads of each row
 * (grade, judge, labels) rather than the rows themselves.
 */
export class SourceTally {
  #rows = 0;
  readonly #hash = createHash("sha256");
  readonly #graded: Row[] = [];
  readonly #path: string | null;

  constructor(source: ExportSource) {
    this.#path = sourcePath(source);
  }

  /** Records one row read. */
  see(row: Row): void {
    this.#rows++;
    if (this.#path === null) this.#hash.update(`${JSON.stringify(row)}\n`);
    // The stamp reads only these fields; the rest of the row is not kept.
    this.#graded.push({
      reward: row.reward,
      judge_meta: row.judge_meta,
      labels: row.labels,
      gold_reward: row.gold_reward,
    } as Row);
  }

  /** The source's facts for the sidecar. */
  async facts(): Promise<SourceFacts> {
    const sha256 = this.#path ? await fileHash(this.#path) : this.#hash.digest("hex");
    return { path: this.#path, sha256, rows: this.#rows };
  }

  /** The publish gate's stamp: the judge's measured calibration, or why it is unmeasured. */
  calibration(): Calibration {
    return calibrationStamp(this.#graded);
  }
}

/** Reads every row of a source, tallying them; for exports that group rows (pairs, RL groups). */
export async function readAll(source: ExportSource, tally: SourceTally): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const row of rowsOf(source)) {
    tally.see(row);
    rows.push(row);
  }
  return rows;
}
