import { once } from "node:events";
import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { open, rename, rm, stat, truncate, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type DatasetMeta, DatasetMetaSchema, type Row, RowSchema } from "../spec/index.ts";
import { OutputLock } from "./output-lock.ts";
import { InputError, issuesOf } from "./util/errors.ts";
import {
  checkOutputPath,
  discard,
  makeFolder,
  readJsonFile,
  shownPath,
  tempPath,
  writeFailure,
  writeFileAtomic,
} from "./util/files.ts";

/** Rows a dataset file may hold in memory before the run waits for the disk (1 MiB). */
const WRITE_BUFFER_BYTES = 1 << 20;

/** Where a dataset's parts live: the rows, their sidecar, and the same pair while a run is unfinished. */
export function datasetPaths(out: string): {
  rows: string;
  meta: string;
  partial: string;
  partialMeta: string;
  lock: string;
} {
  return {
    rows: out,
    meta: `${out}.meta.json`,
    partial: `${out}.partial`,
    partialMeta: `${out}.partial.meta.json`,
    lock: `${out}.lock`,
  };
}

/** A run's output, checked by {@link checkDatasetOutput} before the run does any work. */
export interface DatasetOutputCheck {
  /** What a refusal names: `simulate options`, `simulate flags`. */
  what: string;
  /** How the options are named to the person: SDK options (`out`, `resume: true`) or CLI flags (`--out`, `--resume`). */
  style: "options" | "flags";
  /** Files the run reads (the spec): none of the dataset's files may be one of them. */
  reads: readonly string[];
  /** Continue from `<out>.partial`. */
  resume: boolean;
  /** Discard `<out>.partial` and replace `<out>` once the new run is complete. */
  overwrite: boolean;
}

/**
 * Checks where a run will write before it does any work, and writes nothing: the path (see
 * {@link checkOutputPath}) for the rows, the partial file and their sidecars, then what is there
 * already. Finished rows are never dropped unasked: an unfinished run's partial file is refused
 * without `resume` (to continue from it) or `overwrite` (to discard it), and so is an existing
 * complete file without `overwrite` (unless a partial file is resumed: its run was let replace it).
 */
export async function checkDatasetOutput(out: string, check: DatasetOutputCheck): Promise<void> {
  const field = (option: string) => (check.style === "flags" ? `--${option}` : option);
  const use = (option: string) => (check.style === "flags" ? `--${option}` : `${option}: true`);
  const refuse = (option: string, message: string) =>
    new InputError(check.what, [{ path: field(option), message }]);
  if (check.resume && check.overwrite)
    throw refuse(
      "overwrite",
      `${field("resume")} keeps the rows of an unfinished run and ${field("overwrite")} discards them; expected one of them`,
    );
  const paths = datasetPaths(out);
  await checkOutputPath(out, {
    what: check.what,
    field: field("out"),
    writes: [paths.rows, paths.meta, paths.partial, paths.partialMeta],
    reads: check.reads,
  });
  if (check.overwrite) return;
  if (await exists(paths.partial)) {
    if (check.resume) return;
    throw refuse(
      "out",
      `${shownPath(paths.partial)} holds ${rowsOf(await countLines(paths.partial))} of an unfinished run: use ${use("resume")} to continue from them, or ${use("overwrite")} to discard them`,
    );
  }
  if (await exists(paths.rows))
    throw refuse(
      "out",
      `${shownPath(out)} already exists (${rowsOf(await countLines(paths.rows))})${check.resume ? ` and there is no ${shownPath(paths.partial)} to resume` : ""}: use ${use("overwrite")}${check.resume ? ` instead of ${field("resume")}` : ""} to replace it once the new run is complete, or write to another file`,
    );
}

function rowsOf(count: number): string {
  return count === 1 ? "1 row" : `${count} rows`;
}

/** How many whole lines a file holds (a torn last line is not counted). */
async function countLines(path: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(path)) {
    for (
      let at = (chunk as Buffer).indexOf(0x0a);
      at >= 0;
      at = (chunk as Buffer).indexOf(0x0a, at + 1)
    )
      lines++;
  }
  return lines;
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

/** One JSONL line as a row, checked by its schema; a bad one is an {@link InputError} naming the file and line. */
export function parseRow(text: string, path: string, line: number): Row {
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
 * The start of the warning a run leaves when it resumed rows whose sidecar was lost; a resumed run
 * carries such warnings on, so the dataset says so however often it is resumed.
 */
export const REBUILT = "sidecar rebuilt:";

/**
 * Appends rows, one JSON line each, to `<out>.partial`, and only at the end renames it over `<out>`
 * with its sidecar: an interrupted run leaves the rows it finished in the partial file, and a
 * complete file from an earlier run is never touched until the new one is whole.
 */
export class RowSink {
  readonly paths: ReturnType<typeof datasetPaths>;
  /** Rows already in the partial file when the sink was opened (a resumed run). */
  readonly kept: number;
  /** Warnings about the kept rows, for the run's sidecar: their own sidecar was lost and rebuilt. */
  readonly warnings: readonly string[];
  readonly #stream: WriteStream;
  readonly #lock: OutputLock;
  #failure: Error | null = null;

  private constructor(
    out: string,
    kept: number,
    warnings: string[],
    stream: WriteStream,
    lock: OutputLock,
  ) {
    this.paths = datasetPaths(out);
    this.kept = kept;
    this.warnings = warnings;
    this.#stream = stream;
    this.#lock = lock;
    stream.on("error", (error) => {
      this.#failure = writeFailure(this.paths.partial, error);
    });
  }

  /**
   * Opens the sink; with `resume`, keeps the whole rows of an earlier partial file made with the same
   * options, handing each to `onKept` (which may refuse one by throwing). A partial file whose
   * sidecar is missing keeps its rows too: `onKept` checks each against the run's plan, and the
   * sidecar is rebuilt from the run's options, with a warning that says so. Holds the output's
   * lock ({@link OutputLock}) until closed: another run writing the same file is refused.
   */
  static async open(
    out: string,
    meta: DatasetMeta,
    resume: boolean,
    onKept: (row: Row, index: number) => void,
  ): Promise<RowSink> {
    const paths = datasetPaths(out);
    const lock = await OutputLock.take(paths.lock, out).catch((error: unknown) => {
      throw error instanceof InputError ? error : writeFailure(paths.lock, error);
    });
    try {
      return await RowSink.#open(out, meta, resume, onKept, lock);
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  static async #open(
    out: string,
    meta: DatasetMeta,
    resume: boolean,
    onKept: (row: Row, index: number) => void,
    lock: OutputLock,
  ): Promise<RowSink> {
    const paths = datasetPaths(out);
    let kept = 0;
    const resuming = resume && (await exists(paths.partial));
    const before = resuming ? await readPartialMeta(paths.partialMeta) : null;
    if (resuming) {
      if (before) {
        const mismatch = differences(before, meta);
        if (mismatch.length > 0) throw new InputError(`cannot resume ${paths.partial}`, mismatch);
      }
      await truncate(paths.partial, await completeLength(paths.partial));
      for await (const row of readRows(paths.partial)) onKept(row, kept++);
    }
    const warnings =
      kept === 0
        ? []
        : before
          ? before.warnings.filter((w) => w.startsWith(REBUILT))
          : [
              `${REBUILT} ${shownPath(paths.partial)} had lost its sidecar; its ${kept} rows match this run's plan and models, but the max_turns and slip_rate they were made with are on no row, so they are taken to be this run's`,
            ];
    if (kept === 0) await rm(paths.partial, { force: true });
    await writeFileAtomic(
      paths.partialMeta,
      `${JSON.stringify({ ...meta, warnings: [...meta.warnings, ...warnings], rows: kept, complete: false }, null, 2)}\n`,
    );
    // A buffer of many rows lets the file catch up while the next rows are made, instead of the
    // run waiting on the disk every few rows; it is bounded, so memory stays flat.
    return new RowSink(
      out,
      kept,
      warnings,
      createWriteStream(paths.partial, { flags: "a", highWaterMark: WRITE_BUFFER_BYTES }),
      lock,
    );
  }

  /** Appends one row; resolves once it is handed to the file (waits when the buffer is full). */
  async write(row: Row): Promise<void> {
    await this.writeLine(`${JSON.stringify(row)}\n`);
  }

  /** Appends one row already written as its JSON line (newline included), as text or UTF-8 bytes. */
  async writeLine(line: string | Uint8Array): Promise<void> {
    if (this.#failure) throw this.#failure;
    // A stream that fails while the run waits for it to drain never drains: the wait ends on either.
    if (!this.#stream.write(line)) await once(this.#stream, "drain").catch(() => {});
    if (this.#failure) throw this.#failure;
  }

  /** Closes the file, keeping it as the partial result (an interrupted run) with a sidecar that says what it holds. */
  async close(meta?: DatasetMeta): Promise<void> {
    try {
      await this.#end();
      if (meta)
        await writeFileAtomic(
          this.paths.partialMeta,
          `${JSON.stringify({ ...meta, complete: false }, null, 2)}\n`,
        );
    } finally {
      await this.#lock.release();
    }
  }

  /**
   * Closes the file and makes it the dataset: the sidecar is written to a temp file first, so what
   * is left to fail is two renames in one folder; if the first fails, the partial file and an
   * older complete file both stay whole.
   */
  async finish(meta: DatasetMeta): Promise<void> {
    try {
      await this.#end();
      await publish(this.paths.partial, this.paths.rows, meta);
      await rm(this.paths.partialMeta, { force: true });
    } finally {
      await this.#lock.release();
    }
  }

  async #end(): Promise<void> {
    await new Promise<void>((resolve) =>
      this.#stream.end((error?: Error | null) => {
        this.#failure ??= error ? writeFailure(this.paths.partial, error) : null;
        resolve();
      }),
    );
    if (this.#failure) throw this.#failure;
  }
}

/**
 * Puts a whole rows file in place at `path` with its sidecar: the sidecar goes to a temp file
 * first, so what is left to fail is two renames in one folder, and if the first fails an older
 * file and its sidecar stay whole (and so does `rows`).
 */
async function publish(rows: string, path: string, meta: DatasetMeta | null): Promise<void> {
  const sidecar = datasetPaths(path).meta;
  const temp = tempPath(sidecar);
  try {
    if (meta)
      await writeFile(temp, `${JSON.stringify(meta, null, 2)}\n`, { flag: "wx" }).catch((error) => {
        throw writeFailure(sidecar, error);
      });
    await rename(rows, path).catch((error) => {
      throw writeFailure(path, error);
    });
    if (meta)
      await rename(temp, sidecar).catch((error) => {
        throw writeFailure(sidecar, error);
      });
  } finally {
    await discard(temp);
  }
}

/** A partial file's sidecar for a resume; one that cannot be read is refused with what to do about it. */
async function readPartialMeta(path: string): Promise<DatasetMeta | null> {
  try {
    return await readMeta(path);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    throw new InputError(`cannot resume: ${error.what}`, [
      ...error.issues,
      {
        path: "",
        message: `the rows are kept; remove ${shownPath(path)} to resume with a sidecar rebuilt from them`,
      },
    ]);
  }
}

/** Writes rows and their sidecar as a whole: each to a temp file renamed into place once complete. */
export async function writeDataset(
  path: string,
  rows: Iterable<Row>,
  meta: DatasetMeta | null,
): Promise<void> {
  await writeDatasetLines(path, lines(rows), () => meta);
}

/**
 * Writes rows given as JSON lines (newline included) and then their sidecar, as a whole: the
 * sidecar is asked for once every line is written, so it can count what went by.
 */
export async function writeDatasetLines(
  path: string,
  rows: Iterable<string> | AsyncIterable<string>,
  meta: () => DatasetMeta | null,
): Promise<void> {
  const temp = tempPath(path);
  try {
    await makeFolder(dirname(path));
    // Opened before the first row is made: a stream that opens its file itself may create it after
    // a failing row has already had the temporary file removed, and leave it behind.
    const file = await open(temp, "wx");
    await pipeline(
      Readable.from(rows),
      file.createWriteStream({ highWaterMark: WRITE_BUFFER_BYTES }),
    );
  } catch (error) {
    await discard(temp);
    if (error instanceof InputError) throw error;
    throw writeFailure(path, error);
  }
  try {
    await publish(temp, path, meta());
  } finally {
    await discard(temp);
  }
}

function* lines(rows: Iterable<Row>): Generator<string> {
  for (const row of rows) yield `${JSON.stringify(row)}\n`;
}

/** Fields that decide a run's rows and differ between two sidecars. */
function differences(before: DatasetMeta, now: DatasetMeta): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  if (before.spec_hash !== now.spec_hash)
    out.push({ path: "spec_hash", message: "the partial file was made from another spec" });
  if (JSON.stringify(before.shard ?? null) !== JSON.stringify(now.shard ?? null))
    out.push({
      path: "shard",
      message: `the partial file is ${before.shard ? `shard ${before.shard.index}/${before.shard.count}` : "a whole run"}, not ${now.shard ? `shard ${now.shard.index}/${now.shard.count}` : "a whole run"}`,
    });
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
