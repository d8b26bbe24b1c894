/**
 * Work that can take minutes on a large spec (the covering array, the reachable pairs, the policy's
 * rules) says it is still going: the CLI listens, and prints a line to standard error every few
 * seconds, so a long plan is never silent. With no listener a call costs a counter's increment.
 * The work runs on the main thread without yielding, so its own loops report, not a timer.
 */
let listener: {
  report: (stage: string, seconds: number) => void;
  since: number;
  every: number;
} | null = null;
let last = 0;
let calls = 0;

/** Listens for long work until the function it returns is called: `report` at most once every `everyMs`. */
export function onLongWork(
  report: (stage: string, seconds: number) => void,
  everyMs = 5_000,
): () => void {
  const since = performance.now();
  const mine = { report, since, every: everyMs };
  listener = mine;
  last = since;
  return () => {
    if (listener === mine) listener = null;
  };
}

/** Called from a long loop, each turn: tells the listener, if one waits and its interval is up, what is still being worked out. */
export function stillWorking(stage: string): void {
  if (listener === null || ++calls % 64 !== 0) return;
  const now = performance.now();
  if (now - last < listener.every) return;
  last = now;
  listener.report(stage, (now - listener.since) / 1000);
}
