import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../scripts/build.ts";

const ROOT = join(import.meta.dirname, "..");

/**
 * Builds the CLI as `npm run build` does, into a temporary folder (so the bench measures the code
 * of this checkout, whatever dist/ holds), runs `work` with the script to run, then removes it.
 */
export async function withBuiltCli<T>(work: (entry: string) => Promise<T> | T): Promise<T> {
  const folder = await mkdtemp(join(tmpdir(), "rehearse-built-"));
  try {
    // The bundle leaves its dependencies in node_modules: give the temporary folder the project's.
    await symlink(join(ROOT, "node_modules"), join(folder, "node_modules"), "dir");
    const { entry } = await build(join(folder, "dist"));
    return await work(entry);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
