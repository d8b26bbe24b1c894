import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { InputError } from "./errors.ts";

/** Writes a whole file or nothing: a temp file beside it, renamed over it once complete. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(temp, data);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
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
