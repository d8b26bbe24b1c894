import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { main } from "../../bin/rehearse.ts";

/** The project's root folder. */
export const ROOT = join(import.meta.dirname, "../..");

/** The command that runs the real CLI in a child process. */
export const CLI = [process.execPath, "--import", "tsx", join(ROOT, "bin/rehearse.ts")] as const;

/** What a run of the CLI wrote and how it exited. */
export interface CliRun {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs the CLI in this process with these arguments, as `rehearse <args>` would; never throws. */
export async function rehearse(...args: string[]): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    // Signals belong to the test runner: the Ctrl-C test drives a real process.
    onInterrupt: () => () => {},
  });
  return { stdout, stderr, code };
}

/** Runs the real entry point in a child process (for signals, and to check the script itself). */
export async function rehearseProcess(...args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(CLI[0], [...CLI.slice(1), ...args], {
      cwd: ROOT,
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as CliRun;
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}
