import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm, stat, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { InputError } from "./errors.ts";

/** Longest file name most file systems take (ext4, xfs, btrfs, tmpfs), in bytes. */
const NAME_MAX = 255;
/** Longest path Linux takes, in bytes (with its final NUL). */
const PATH_MAX = 4096;
/** Bytes a temp file's name adds to the file it stands for: `.` + 12 hex digits + `.tmp`. */
const TEMP_SUFFIX_BYTES = 17;

/** A fresh name beside `path` for the temp file a write goes through before it is renamed into place. */
export function tempPath(path: string): string {
  return `${path}.${randomBytes(6).toString("hex")}.tmp`;
}

/** Writes a whole file or nothing: a temp file beside it, renamed over it once complete. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const temp = tempPath(path);
  try {
    await makeFolder(dirname(path));
    await writeFile(temp, data, { flag: "wx" });
    await rename(temp, path);
  } catch (error) {
    await discard(temp);
    throw writeFailure(path, error);
  }
}

/**
 * Writes several files as one: each goes to a temp file beside it, and only when every one is
 * whole are they renamed into place. A write that fails leaves every old file as it was and no
 * temp file behind; a place taken by a folder is found before anything is renamed.
 */
export async function writeFilesAtomic(
  files: ReadonlyMap<string, string | Uint8Array>,
): Promise<void> {
  const staged: { path: string; temp: string }[] = [];
  let at = "";
  try {
    for (const [path, data] of files) {
      at = path;
      const kind = await kindOf(path);
      if (kind !== null && kind !== "file")
        throw Object.assign(new Error("a folder is in its place"), { code: "EISDIR" });
      const temp = tempPath(path);
      staged.push({ path, temp });
      await makeFolder(dirname(path));
      await writeFile(temp, data, { flag: "wx" });
    }
    for (const { path, temp } of staged) {
      at = path;
      await rename(temp, path);
    }
  } catch (error) {
    for (const { temp } of staged) await discard(temp);
    throw writeFailure(at, error);
  }
}

/** Removes a temp file if it is there; a failure to, which would hide the error that matters, is ignored. */
export async function discard(temp: string): Promise<void> {
  await rm(temp, { force: true }).catch(() => {});
}

/**
 * Creates a folder and its missing parents, one at a time from the nearest existing one: Node's own
 * recursive mkdir loops forever under /proc, where a create fails with "no such file or folder".
 */
export async function makeFolder(folder: string): Promise<void> {
  const missing: string[] = [];
  let at = resolve(folder);
  // Each step climbs one level, so the walk ends at the root at the latest.
  while ((await kindOf(at)) === null) {
    missing.push(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const path of missing.reverse()) {
    await mkdir(path).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST" || (await kindOf(path)) !== "folder") throw error;
    });
  }
}

/** An error of a write that failed while running, naming the file the caller meant and why, in one line. */
export function writeFailure(path: string, error: unknown): Error {
  return new Error(`cannot write ${shownPath(path)}: ${reasonOf(error)}`, { cause: error });
}

/** Why a file operation failed, in words, with the system's code for searching. */
export function reasonOf(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  const said = code ? REASONS[code] : undefined;
  return said ? `${said} (${code})` : message;
}

const REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "it is a folder",
  ENOTDIR: "a part of the path is a file, not a folder",
  ENOENT: "no such file or folder",
  EROFS: "the file system is read-only",
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is used up",
  ENAMETOOLONG: "the name is too long",
  EEXIST: "it already exists",
  EBUSY: "it is busy (a mount point, or a file in use)",
  EXDEV: "the temp file and the file are on different devices",
};

/** A path as it can be printed on one line: quoted when it holds a newline or another control character. */
export function shownPath(path: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
  return /[\u0000-\u001f\u007f]/.test(path) ? JSON.stringify(path) : path;
}

/** What a command is about to write, checked by {@link checkOutputPath}. */
export interface OutputCheck {
  /** What the refusal names: `simulate options`, `grade flags`. */
  what: string;
  /** The option or flag that named the file: `out`, `--out`. */
  field: string;
  /** Every file the command will write for this output (the output first); default: the output alone. */
  writes?: readonly string[];
  /** Every file the command reads: none of them may be written. */
  reads: readonly string[];
}

/**
 * Checks a file a command is about to write, before any work, and writes nothing that stays: it
 * names a file (not a folder, `.`, or a path ending in `/`), none of the files it stands for is a
 * folder, a device or one of the command's inputs (symlinks and hard links included), and its
 * folder exists or can be created and takes new files. Refusals are {@link InputError}s naming the
 * field and the path.
 */
export async function checkOutputPath(path: string, check: OutputCheck): Promise<void> {
  const refuse = (message: string) => new InputError(check.what, [{ path: check.field, message }]);
  const shown = shownPath(path);
  if (path.includes("\0")) throw refuse(`${shown} holds a NUL character; expected a file path`);
  if (path.endsWith("/") || [".", "..", ""].includes(basename(path)))
    throw refuse(`${shown} names a folder; expected the path of a file to write`);
  const writes = check.writes ?? [path];
  const longest = writes.reduce((a, b) => (Buffer.byteLength(b) > Buffer.byteLength(a) ? b : a));
  const nameBytes = Buffer.byteLength(basename(longest)) + TEMP_SUFFIX_BYTES;
  if (nameBytes > NAME_MAX)
    throw refuse(
      `the file name of ${shown} is too long: with what is written beside it (${basename(longest).slice(basename(path).length)} and a temp suffix) it needs ${nameBytes} bytes, and a file name holds at most ${NAME_MAX}`,
    );
  if (Buffer.byteLength(resolve(longest)) + TEMP_SUFFIX_BYTES >= PATH_MAX)
    throw refuse(`${shown} is too long a path: a path holds at most ${PATH_MAX - 1} bytes`);

  const inputs = await Promise.all(check.reads.map((read) => identity(read)));
  for (const written of writes) {
    const found = await stat(written).catch(() => null);
    if (!found) continue;
    const shownWritten = shownPath(written);
    if (found.isDirectory()) throw refuse(`${shownWritten} is a folder; expected a file`);
    if (!found.isFile())
      throw refuse(`${shownWritten} is not a regular file (a device or a pipe); expected a file`);
    const read = check.reads.find(
      (_, i) => inputs[i] !== null && inputs[i] === `${found.dev}:${found.ino}`,
    );
    if (read === undefined) continue;
    const subject = written === path ? shown : `${shownWritten} (written beside ${shown})`;
    const same = written === read ? "" : ` (the same file as ${shownPath(read)})`;
    throw refuse(`${subject} is read by this command${same}; write to another file`);
  }
  const reason = await cannotCreateIn(dirname(resolve(path)), basename(longest));
  if (reason) throw refuse(`cannot write ${shown}: ${reason}`);
}

/**
 * Checks a folder a command is about to write files into, before any work: it is a folder, or can
 * be made, and takes new files (one named `name`, the longest the command writes there).
 */
export async function checkOutputFolder(
  folder: string,
  check: { what: string; field: string; name: string },
): Promise<void> {
  const refuse = (message: string) => new InputError(check.what, [{ path: check.field, message }]);
  if (folder.includes("\0"))
    throw refuse(`${shownPath(folder)} holds a NUL character; expected a folder path`);
  const reason = await cannotCreateIn(resolve(folder), check.name);
  if (reason) throw refuse(`cannot write into ${shownPath(folder)}: ${reason}`);
}

/** A file's device and inode, following symlinks; null when it does not exist. */
async function identity(path: string): Promise<string | null> {
  const found = await stat(path).catch(() => null);
  return found ? `${found.dev}:${found.ino}` : null;
}

/**
 * Why no file could be created in `folder` (or in its nearest existing parent, when it is still to
 * be made), or null: a probe file is created and removed, as nothing short of that tells (root
 * passes every permission check, yet /proc takes no files).
 */
async function cannotCreateIn(folder: string, name: string): Promise<string | null> {
  let at = folder;
  let kind = await kindOrError(at);
  // Climb past what is missing, and past a path that runs through a file, to what is there.
  while ((kind === null || isCode(kind, "ENOTDIR")) && dirname(at) !== at) {
    at = dirname(at);
    kind = await kindOrError(at);
  }
  if (kind instanceof Error) return `${shownPath(at)}: ${reasonOf(kind)}`;
  if (kind !== "folder") return `${shownPath(at)} is a file, not a folder`;
  // The probe bears the longest name the command will use where it will use it, so a name too long
  // for this file system shows here; in a parent still to be made, a short name does.
  const probe = tempPath(`${at}/${at === folder ? name : ".rehearse-probe"}`);
  try {
    await (await open(probe, "wx")).close();
  } catch (error) {
    const where =
      at === folder
        ? `the folder ${shownPath(folder)} takes no new files`
        : `the folder ${shownPath(folder)} does not exist and cannot be made in ${shownPath(at)}`;
    return `${where}: ${reasonOf(error)}`;
  }
  await unlink(probe);
  return null;
}

async function kindOrError(path: string): Promise<"folder" | "file" | null | Error> {
  return kindOf(path).catch((error: Error) => error);
}

function isCode(value: unknown, code: string): boolean {
  return value instanceof Error && (value as NodeJS.ErrnoException).code === code;
}

/** Whether a path is a folder, another kind of file, or missing (null); other errors are thrown. */
async function kindOf(path: string): Promise<"folder" | "file" | null> {
  try {
    return (await stat(path)).isDirectory() ? "folder" : "file";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Reads a text file; an unreadable file is a {@link InputError} naming it and, when given, what it was for. */
export async function readTextFile(path: string, what = path): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw unreadable(path, what, error);
  }
}

function unreadable(path: string, what: string, error: unknown): InputError {
  return new InputError(what, [
    { path: "", message: `cannot read ${path}: ${(error as Error).message}` },
  ]);
}

/**
 * Reads and parses a JSON file; an unreadable file or bad JSON is a {@link InputError} naming the
 * file. With `optional`, a file that does not exist is `undefined` instead.
 */
export async function readJsonFile(
  path: string,
  options: { optional?: boolean } = {},
): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (options.optional && (error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw unreadable(path, path, error);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputError(path, [
      { path: "", message: `expected JSON: ${(error as Error).message}` },
    ]);
  }
}
