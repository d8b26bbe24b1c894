/** Exit codes: 0 done, 1 failed while running, 2 refused the input (bad flags or spec), 130 interrupted. */
export const EXIT = { ok: 0, failed: 1, invalidInput: 2, interrupted: 130 } as const;

/**
 * Where the CLI writes and what stops it: the process's own streams and signals, or a test's.
 * Commands write only through it and return their exit code, so the CLI runs in process too.
 */
export interface Io {
  /** Writes to standard output. */
  out(text: string): void;
  /** Writes to standard error. */
  err(text: string): void;
  /** A terminal to draw progress bars on, when standard error is one. */
  terminal?: NodeJS.WriteStream;
  /** Calls `stop` on Ctrl-C or SIGTERM until the function it returns is called. */
  onInterrupt(stop: () => void): () => void;
}

/**
 * Writes to a standard stream that its reader may close first (`rehearse plan --json | head`):
 * once the pipe is broken, the rest of the output has nowhere to go and is dropped, and the
 * command finishes its work (a file being written stays whole) instead of dying on EPIPE with a
 * stack trace. Any other write error is still thrown.
 */
function writerTo(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    closed = true;
  });
  return (text) => {
    if (!closed) stream.write(text);
  };
}

/** The process's standard output and error, and its Ctrl-C and SIGTERM. */
export const processIo: Io = {
  out: writerTo(process.stdout),
  err: writerTo(process.stderr),
  ...(process.stderr.isTTY ? { terminal: process.stderr } : {}),
  onInterrupt: (stop) => {
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    return () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    };
  },
};
