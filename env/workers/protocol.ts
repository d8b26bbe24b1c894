import type { Row, Situation } from "../../spec/index.ts";
import type { RowFacts } from "../run-tally.ts";

/** What a worker thread is started with: the spec and everything that decides an offline episode. */
export interface WorkerSetup {
  /** The agent spec, as {@link Agent.spec} holds it; the worker checks it hashes the same. */
  spec: unknown;
  specHash: string;
  slipRate: number;
  maxTurns: number;
  logprobs: boolean;
  /** Send each row as an object too (a run kept in memory), not only as its JSON line. */
  keepRows: boolean;
}

/** One episode for a worker to play: which situation, which rollout of it (and whether another follows), and a number to answer by. */
export interface PlayRequest {
  id: number;
  situation: Situation;
  rollout: number;
  keepStart: boolean;
}

/**
 * A worker's answer: the row's JSON line as UTF-8 bytes and its tally facts, or what went wrong.
 * The bytes of a batch's lines share one buffer that is moved to the main thread, not copied, so
 * the thread writing the file neither copies nor encodes them.
 */
export type PlayReply =
  | { id: number; line: Uint8Array; facts: RowFacts; row?: Row }
  | { id: number; error: string };
