import { onLongWork } from "../env/index.ts";
import type { Io } from "./io.ts";

/**
 * Runs a command that plans, printing every 5 s what it is still working out (`rehearse: still
 * building the covering array (15 s)`): a large spec can keep planning for minutes without
 * yielding, and must not do it silently.
 */
export async function reportingLongWork<T>(io: Io, work: () => Promise<T>): Promise<T> {
  const stop = onLongWork((stage, seconds) =>
    io.err(`rehearse: still ${stage} (${Math.round(seconds)} s)\n`),
  );
  try {
    return await work();
  } finally {
    stop();
  }
}
