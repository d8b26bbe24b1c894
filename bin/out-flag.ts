import { stat } from "node:fs/promises";
import { checkOutputPath, InputError, shownPath } from "../env/index.ts";

/** What a command's `--out` check needs: the refusal's subject, the inputs, what else is written beside it. */
export interface OutFlagCheck {
  /** The refusal's subject, e.g. `export flags`. */
  what: string;
  /** Whether an existing file may be replaced (`--overwrite`, or a command whose output is always made anew). */
  overwrite: boolean;
  /** The files the command reads, which it must not write over. */
  reads: readonly string[];
  /** Every file written, `--out` included (a sidecar beside it); `--out` alone when not given. */
  writes?: readonly string[];
}

/**
 * Checks a command's `--out` before any work, naming the flag (the library's own check, run again
 * later, names the option `out`): a file path, none of the command's inputs, and an existing file
 * replaced only when asked.
 */
export async function checkOutFlag(out: string, check: OutFlagCheck): Promise<void> {
  await checkOutputPath(out, {
    what: check.what,
    field: "--out",
    reads: check.reads,
    ...(check.writes ? { writes: check.writes } : {}),
  });
  if (check.overwrite) return;
  const found = await stat(out).catch(() => null);
  if (found?.isFile())
    throw new InputError(check.what, [
      {
        path: "--out",
        message: `${shownPath(out)} already exists: use --overwrite to replace it, or write to another file`,
      },
    ]);
}
