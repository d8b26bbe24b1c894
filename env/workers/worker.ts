import { parentPort, workerData } from "node:worker_threads";
import type { Row } from "../../spec/index.ts";
import { Agent } from "../agent.ts";
import { FallbackWriter } from "../roles/assign.ts";
import { OfflineAgent } from "../roles/offline-agent.ts";
import { offlineUser } from "../roles/offline-user.ts";
import { OfflineWriter } from "../roles/offline-writer.ts";
import { playEpisode } from "../rollout.ts";
import { rowJson } from "../row-json.ts";
import { type RowFacts, RunTally } from "../run-tally.ts";
import { messageOf } from "../util/errors.ts";
import type { PlayReply, PlayRequest, WorkerSetup } from "./protocol.ts";

/**
 * A worker thread of a simulate run: it builds the agent and the offline roles once, then plays
 * the episodes it is sent, one at a time, and answers each with the row's JSON line and its tally
 * facts. Every episode draws only on its own seeded streams, so a row is the same whichever thread
 * plays it.
 */
const setup = workerData as WorkerSetup;
const agent = Agent.from(setup.spec);
if (agent.hash !== setup.specHash)
  throw new Error(`worker: the spec hashes to ${agent.hash}, not ${setup.specHash}`);
const policy = new OfflineAgent({ slipRate: setup.slipRate });
const writer = new FallbackWriter(new OfflineWriter());
const tally = new RunTally(agent, setup.logprobs);
const port = parentPort;
if (!port) throw new Error("worker.ts runs as a worker thread");

/** A played episode before its line is encoded: the line as text, or what went wrong. */
type Played =
  | { id: number; text: string; facts: RowFacts; row?: Row }
  | { id: number; error: string };

/** Plays one episode: its row's JSON line and tally facts, or what went wrong. */
async function play(request: PlayRequest): Promise<Played> {
  try {
    const row = await playEpisode(
      agent,
      request.situation,
      policy,
      writer,
      offlineUser,
      setup.maxTurns,
      request.rollout,
      request.keepStart,
    );
    return {
      id: request.id,
      text: `${rowJson(row, agent)}\n`,
      facts: tally.facts(row),
      ...(setup.keepRows ? { row } : {}),
    };
  } catch (error) {
    return { id: request.id, error: messageOf(error) };
  }
}

/** A batch's lines encoded into one buffer, each reply viewing its own line's bytes. */
function encoded(played: Played[]): { replies: PlayReply[]; buffer: ArrayBuffer } {
  let size = 0;
  for (const p of played) if ("text" in p) size += Buffer.byteLength(p.text);
  const bytes = new Uint8Array(size);
  const encoder = new TextEncoder();
  let at = 0;
  const replies = played.map((p): PlayReply => {
    if (!("text" in p)) return p;
    const { text, ...rest } = p;
    const { written } = encoder.encodeInto(text, bytes.subarray(at));
    const line = bytes.subarray(at, at + written);
    at += written;
    return { ...rest, line };
  });
  return { replies, buffer: bytes.buffer };
}

// Episodes come in batches and are answered in one message each: a message costs more than its bytes.
port.on("message", async (requests: PlayRequest[]) => {
  const played: Played[] = [];
  for (const request of requests) played.push(await play(request));
  const { replies, buffer } = encoded(played);
  port.postMessage(replies, [buffer]);
});
