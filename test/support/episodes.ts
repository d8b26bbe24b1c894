import type { Agent } from "../../env/agent.ts";
import { Episode, type EpisodeOptions } from "../../env/episode.ts";
import type { Coordinate } from "../../spec/index.ts";
import { situationOf } from "../fixtures/situations.ts";

/** One tool call of an assistant message: name, arguments (an object, or raw text), id. */
export type Call = [name: string, args: Record<string, unknown> | string, id: string];

/** An assistant message that makes these tool calls. */
export const calls = (...list: Call[]) => ({
  role: "assistant" as const,
  content: null,
  tool_calls: list.map(([name, args, id]) => ({
    id,
    type: "function" as const,
    function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
  })),
});

/** An assistant message that says `content`. */
export const say = (content: string) => ({ role: "assistant" as const, content });

/** An episode of `agent` on the situation at these axis values, reset and waiting for the agent. */
export async function started(
  agent: Agent,
  axes: Partial<Coordinate> = {},
  options: Partial<EpisodeOptions> = {},
): Promise<Episode> {
  const episode = new Episode({ spec: agent, situation: situationOf(agent, axes), ...options });
  await episode.reset();
  return episode;
}
