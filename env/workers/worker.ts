import { parentPort, workerData } from "node:worker_threads";
import { Agent } from "../agent.ts";
import { FallbackWriter } from "../roles/assign.ts";
import { OfflineAgent } from "../roles/offline-agent.ts";
import { offlineUser } from "../roles/offline-user.ts";
import { OfflineWriter } from "../roles/offline-writer.ts";
import { playEpisode } from "../rollout.ts";
import { RunTally } from "../run-tally.ts";
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

/** Plays one episode: its row's JSON line and tally facts, or what went wrong. */
async function play(request: PlayRequest): Promise<PlayReply> {
  try {
    const row = await playEpisode(
      agent,
      request.situation,
      policy,
      writer,
      offlineUser,
      setup.maxTurns,
      request.rollout,
    );
    return {
      id: request.id,
      line: `${JSON.stringify(row)}\n`,
      facts: tally.facts(row),
      ...(setup.keepRows ? { row } : {}),
    };
  } catch (error) {
    return { id: request.id, error: messageOf(error) };
  }
}

// Episodes come in batches and are answered in one message each: a message costs more than its bytes.
port.on("message", async (requests: PlayRequest[]) => {
  const replies: PlayReply[] = [];
  for (const request of requests) replies.push(await play(request));
  port.postMessage(replies);
});
