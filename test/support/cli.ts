import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";

/** The project's root folder. */
export const ROOT = join(import.meta.dirname, "../..");

/** The command that runs the real CLI in a child process. */
export const CLI = [process.execPath, "--import", "tsx", join(ROOT, "bin/rehearse.ts")] as const;

/** Runs the real CLI with these arguments; resolves with its output and exit code, whatever the code. */
export async function rehearse(
  ...args: string[]
): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(CLI[0], [...CLI.slice(1), ...args], {
      cwd: ROOT,
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}
