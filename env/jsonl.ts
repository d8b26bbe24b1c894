import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { open, rename, rm, stat, truncate } from "node:fs/promises";
import { createInterface } from "node:readline";
import { type DatasetMeta, DatasetMetaSchema, type Row, RowSchema } from "../spec/index.ts";
import { InputError, issuesOf } from "./util/errors.ts";
import { readJsonFile, writeFileAtomic } from "./util/files.ts";

/** Rows a dataset file may hold in memory before the run waits for the disk (1 MiB). */
const WRITE_BUFFER_BYTES = 1 << 20;

/** Where a dataset's parts live: the rows, their sidecar, and the same pair while a run is unfinished. */
export function datasetPaths(out: string): {
  rows: string;
  meta: string;
  partial: string;
  partialMeta: string;
} {
  return {
    rows: out,
    meta: `${out}.meta.json`,
    partial: `${out}.partial`,
    partialMeta: `${out}.partial.meta.json`,
  };
}

/** Reads a dataset's sidecar; null when there is none. */
export async function readMeta(path: string): Promise<DatasetMeta | null> {
  const json = await readJsonFile(path, { optional: true });
  if (json === undefined) return null;
  const parsed = DatasetMetaSchema.safeParse(json);
  if (!parsed.success) throw new InputError(path, issuesOf(parsed.error, json));
  return parsed.data;
}

/**
 * Streams the rows of a JSONL file, validating each; a bad line is an error naming its line number
 * and field. With `tornTail`, a last line cut off mid-write (an interrupted run) is skipped instead.
 */
export async function* readRows(
  path: string,
  options: { tornTail?: boolean } = {},
): AsyncGenerator<Row> {
  const lines = createInterface({
    input: createReadStream(path, "utf8"),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let number = 0;
  let pending: { text: string; number: number } | null = null;
  for await (const text of lines) {
    number++;
    if (pending) yield parseRow(pending.text, path, pending.number);
    pending = text.trim() === "" ? null : { text, number };
  }
  if (!pending) return;
  if (options.tornTail && !(await endsWithNewline(path))) {
    try {
      JSON.parse(pending.text);
    } catch {
      return;
    }
  }
  yield parseRow(pending.text, path, pending.number);
}

function parseRow(text: string, path: string, line: number): Row {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${path}:${line}`, [
      { path: "", message: `expected a JSON row: ${(error as Error).message}` },
    ]);
  }
  const parsed = RowSchema.safeParse(json);
  if (!parsed.success) throw new InputError(`${path}:${line}`, issuesOf(parsed.error, json));
  return parsed.data;
}

async function endsWithNewline(path: string): Promise<boolean> {
  const { size } = await stat(path);
  if (size === 0) return true;
  const handle = await open(path, "r");
  try {
    const byte = Buffer.alloc(1);
    await handle.read(byte, 0, 1, size - 1);
    return byte[0] === 0x0a;
  } finally {
    await handle.close();
  }
}

/**
 * Appends rows, one JSON line each, to `<out>.partial`, and only at the end renames it over `<out>`
 * with its sidecar: an interrupted run leaves the rows it finished in the partial file, and a
 * complete file from an earlier run is never touched until the new one is whole.
 */
export class RowSink {
  readonly paths: ReturnType<typeof datasetPaths>;
  /** Rows already in the partial file when the sink was opened (a resumed run). */
  readonly kept: number;
  readonly #stream: WriteStream;
  #failure: Error | null = null;

  private constructor(out: string, kept: number, stream: WriteStream) {
    this.paths = datasetPaths(out);
    this.kept = kept;
    this.#stream = stream;
    stream.on("error", (error) => {
      this.#failure = error;
    });
  }

  /**
   * Opens the sink; with `resume`, keeps the whole rows of an earlier partial file made with the same
   * options, handing each to `onKept` (which may refuse one by throwing).
   */
  static async open(
    out: string,
    meta: DatasetMeta,
    resume: boolean,
    onKept: (row: Row, index: number) => void,
  ): Promise<RowSink> {
    const paths = datasetPaths(out);
    let kept = 0;
    const before = resume ? await readMeta(paths.partialMeta) : null;
    if (before && (await exists(paths.partial))) {
      const mismatch = differences(before, meta);
      if (mismatch.length > 0) throw new InputError(`cannot resume ${paths.partial}`, mismatch);
      await truncate(paths.partial, await completeLength(paths.partial));
      for await (const row of readRows(paths.partial)) onKept(row, kept++);
    }
    if (kept === 0) await rm(paths.partial, { force: true });
    await writeFileAtomic(
      paths.partialMeta,
      `${JSON.stringify({ ...meta, rows: kept, complete: false }, null, 2)}\n`,
    );
    // A buffer of many rows lets the file catch up while the next rows are made, instead of the
    // run waiting on the disk every few rows; it is bounded, so memory stays flat.
    return new RowSink(
      out,
      kept,
      createWriteStream(paths.partial, { flags: "a", highWaterMark: WRITE_BUFFER_BYTES }),
    );
  }

  /** Appends one row; resolves once it is handed to the file (waits when the buffer is full). */
  async write(row: Row): Promise<void> {
    if (this.#failure) throw this.#failure;
    if (!this.#stream.write(`${JSON.stringify(row)}\n`))
      await new Promise<void>((resolve) => this.#stream.once("drain", resolve));
  }

  /** Closes the file, keeping it as the partial result (an interrupted run) with a sidecar that says what it holds. */
  async close(meta?: DatasetMeta): Promise<void> {
    await new Promise<void>((resolve, reject) =>
      this.#stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
    if (this.#failure) throw this.#failure;
    if (meta)
      await writeFileAtomic(
        this.paths.partialMeta,
        `${JSON.stringify({ ...meta, complete: false }, null, 2)}\n`,
      );
  }

  /** Closes the file and makes it the dataset: sidecar written, partial renamed over `<out>`. */
  async finish(meta: DatasetMeta): Promise<void> {
    await this.close();
    await writeFileAtomic(this.paths.meta, `${JSON.stringify(meta, null, 2)}\n`);
    await rename(this.paths.partial, this.paths.rows);
    await rm(this.paths.partialMeta, { force: true });
  }
}

/** Writes rows and their sidecar as a whole: each to a temp file renamed into place once complete. */
export async function writeDataset(
  path: string,
  rows: Iterable<Row>,
  meta: DatasetMeta | null,
): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  const stream = createWriteStream(temp);
  try {
    for (const row of rows) {
      if (!stream.write(`${JSON.stringify(row)}\n`))
        await new Promise<void>((resolve) => stream.once("drain", resolve));
    }
    await new Promise<void>((resolve, reject) =>
      stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
    if (meta) await writeFileAtomic(datasetPaths(path).meta, `${JSON.stringify(meta, null, 2)}\n`);
    await rename(temp, path);
  } catch (error) {
    stream.destroy();
    await rm(temp, { force: true });
    throw error;
  }
}

/** Fields that decide a run's rows and differ between two sidecars. */
function differences(before: DatasetMeta, now: DatasetMeta): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  if (before.spec_hash !== now.spec_hash)
    out.push({ path: "spec_hash", message: "the partial file was made from another spec" });
  for (const [key, value] of Object.entries(now.options)) {
    const was = (before.options as Record<string, unknown>)[key];
    if (key !== "rows" && was !== value)
      out.push({
        path: `options.${key}`,
        message: `the partial file was made with ${JSON.stringify(was)}, not ${JSON.stringify(value)}`,
      });
  }
  return out;
}

/** Bytes up to and including the last newline: the whole lines of a file an interrupted run was writing. */
async function completeLength(path: string): Promise<number> {
  const { size } = await stat(path);
  const handle = await open(path, "r");
  try {
    const chunk = Buffer.alloc(64 * 1024);
    for (let end = size; end > 0; end -= chunk.length) {
      const start = Math.max(0, end - chunk.length);
      const { bytesRead } = await handle.read(chunk, 0, end - start, start);
      const at = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (at >= 0) return start + at + 1;
    }
    return 0;
  } finally {
    await handle.close();
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
