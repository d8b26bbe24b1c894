import { SingleBar } from "cli-progress";
import type { Io } from "./io.ts";

/** A progress bar on standard error, drawn only when it is a terminal; the total is learnt from the first update. */
export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

/** A bar for `what` (e.g. "simulate … rows"), or one that draws nothing when standard error is not a terminal. */
export function progressBar(io: Io, what: string, unit: string): Progress {
  if (!io.terminal) return { update: () => {}, stop: () => {} };
  const bar = new SingleBar({
    format: `${what} {bar} {value}/{total} ${unit} · {eta_formatted} left`,
    stream: io.terminal,
    hideCursor: true,
    emptyOnZero: true,
  });
  bar.start(0, 0);
  return {
    update: (done, total) => {
      bar.setTotal(total);
      bar.update(done);
    },
    stop: () => bar.stop(),
  };
}
