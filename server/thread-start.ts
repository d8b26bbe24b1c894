import { parentPort } from "node:worker_threads";
import { Agent } from "../env/index.ts";

/**
 * What a server's worker thread starts from: the port to the main thread, and the agent of the
 * spec it was sent, checked to hash as the main thread's did (a thread serving another spec would
 * answer for the wrong grid).
 */
export function threadStart(
  setup: { spec: unknown; specHash: string },
  thread: string,
): { port: NonNullable<typeof parentPort>; agent: Agent } {
  if (!parentPort) throw new Error(`the ${thread} runs as a worker thread`);
  const agent = Agent.from(setup.spec);
  if (agent.hash !== setup.specHash)
    throw new Error(`${thread}: the spec hashes to ${agent.hash}, not ${setup.specHash}`);
  return { port: parentPort, agent };
}
