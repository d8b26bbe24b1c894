import type {
  ChatMessage,
  EpisodeDriver,
  ResetRequest,
  Row,
  Situation,
  Slip,
  StepResult,
} from "../spec/index.ts";
import type { Agent } from "./agent.ts";
import { Episode, EpisodeError, type EpisodeOptions } from "./episode.ts";
import {
  type AgentPolicy,
  type AgentSession,
  rolloutSeed,
  type SituationWriter,
  type UserSimulator,
} from "./roles/types.ts";
import { messageOf } from "./util/errors.ts";

/** What a rollout leaves: the conversation as the policy saw it, its slips, the last result, and why it stopped early. */
export interface RolloutResult {
  conversation: ChatMessage[];
  /** The offline agent's slips, each at the index of its message in the conversation. */
  slips: Slip[];
  last: StepResult;
  /** Why the policy's side stopped before the episode was done (it failed, or sent a message the episode refused). */
  error: string | null;
}

/**
 * The one loop that drives an episode: reset, then the policy answers each observation until the
 * episode is done. It sees only what crosses the contract (reset request, observations, step
 * results), so it drives an {@link Episode} in process or one behind the server alike.
 *
 * @example
 * const { conversation, last } = await rollout(new Episode({ spec, situation }), policy.start(agent, seed));
 */
export async function rollout(
  episode: EpisodeDriver,
  policy: AgentSession,
  request: ResetRequest = {},
): Promise<RolloutResult> {
  let last = await episode.reset(request);
  const conversation: ChatMessage[] = [...last.observation.messages];
  const slips: Slip[] = [];
  while (!last.done) {
    let turn: Awaited<ReturnType<AgentSession["respond"]>>;
    try {
      turn = await policy.respond(conversation);
      last = await episode.step(turn.message);
    } catch (error) {
      // A policy that fails, or a turn the episode refuses (a malformed message from a model), ends
      // this rollout; an episode that cannot take a step at all is the episode's error.
      const side = error instanceof EpisodeError ? "episode" : "agent";
      return { conversation, slips, last, error: `${side}: ${messageOf(error)}` };
    }
    if (turn.slip) slips.push({ ...turn.slip, message: conversation.length });
    conversation.push(turn.message, ...last.observation.messages);
  }
  return { conversation, slips, last, error: null };
}

/**
 * One row: an episode of the situation played from reset to its end by the policy, the roles'
 * failures kept on the row. `keepStart` when another rollout of the situation follows (see
 * {@link EpisodeOptions.keepStart}).
 */
export async function playEpisode(
  agent: Agent,
  situation: Situation,
  policy: AgentPolicy,
  writer: SituationWriter,
  userModel: UserSimulator,
  maxTurns: number,
  index = 0,
  keepStart = false,
): Promise<Row> {
  const episode = new Episode({
    spec: agent,
    situation,
    writer,
    userModel,
    maxTurns,
    agentName: policy.name,
    rollout: index,
    keepStart,
  });
  const result = await rollout(episode, policy.start(agent, rolloutSeed(situation, index)));
  if (result.error !== null) episode.fail(new Error(result.error));
  return episode.row({ slips: result.slips });
}
