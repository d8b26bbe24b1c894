import { randomBytes } from "node:crypto";
import { rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { makeFolder } from "../env/index.ts";

/** A fresh name beside `path` for the temp file an export is written to before it is renamed into place. */
export function tempBeside(path: string): string {
  return `${path}.${randomBytes(6).toString("hex")}.tmp`;
}

/**
 * Runs `write` against a temp file beside `path` (making its folder when missing), then renames it
 * over `path`: the export is whole or absent, never half-written. The temp file is removed when the
 * write fails.
 */
export async function writeThroughTemp<T>(
  path: string,
  write: (temp: string) => Promise<T>,
): Promise<T> {
  await makeFolder(dirname(path));
  const temp = tempBeside(path);
  try {
    const result = await write(temp);
    await rename(temp, path);
    return result;
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}
