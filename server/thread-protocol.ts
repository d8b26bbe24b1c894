import type { MetricsCounts } from "./metrics.ts";

/** What an engine thread is started with: the spec, the plan's settings, the limits, and the shared session count. */
export interface EngineThreadSetup {
  /** The agent spec, as `Agent.spec` holds it; the thread checks it hashes the same. */
  spec: unknown;
  specHash: string;
  rows: number;
  seed: number | string | undefined;
  maxTurns: number;
  /** A grader module's absolute path, which the thread loads itself. */
  grader?: string;
  maxSessions: number;
  maxFrameBytes: number;
  stepRate: number;
  idleTtl: number;
  /** One Int32: the sessions held on every thread together. */
  sessions: SharedArrayBuffer;
}

/**
 * The main thread's word about one connection, sent in batches (one message per turn of the
 * event loop): a connection pinned to the thread, a frame it sent (a text frame as its text, a
 * binary one as its bytes), and its socket closed.
 */
export type ToThread =
  | readonly ["open", id: number, unused: null]
  | readonly ["frame", id: number, frame: string | Uint8Array]
  | readonly ["closed", id: number, unused: null];

/**
 * An engine thread's word, in batches: a reply to send, a socket to close or drop, a session
 * added to or removed from its table, and a finished episode's row as its JSON line (for
 * `POST /v1/freeze`).
 */
export type FromThread =
  | readonly ["send", id: number, data: string | Uint8Array]
  | readonly ["close", id: number, how: readonly [code: number, reason: string]]
  | readonly ["terminate", id: number, unused: null]
  | readonly ["added", sessionId: string, unused: null]
  | readonly ["removed", sessionId: string, unused: null]
  | readonly ["finished", line: string, unused: null];

/**
 * A batch as it crosses between threads: its items' three fields laid end to end in one array,
 * which costs the structured clone far less than an array per item; read back three at a time.
 */
export type Batch<Item extends readonly unknown[]> = Item[number][];

/** Appends an item to a batch. */
export function append<Item extends readonly [unknown, unknown, unknown]>(
  batch: Batch<Item>,
  item: Item,
): void {
  batch.push(item[0], item[1], item[2]);
}

/** Questions the main thread asks an engine thread outside the batches, each by a number its answer repeats. */
export type ThreadRequest =
  | { kind: "counts"; ask: number }
  | { kind: "drain"; ask: number; ms: number };
/** A thread's answers: it is ready (once, when it has planned), its counts, its connections drained. */
export type ThreadAnswer =
  | { kind: "ready" }
  | { kind: "counts"; ask: number; metrics: MetricsCounts; detached: number }
  | { kind: "drained"; ask: number };
