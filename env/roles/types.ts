import type { AssistantMessage, ChatMessage, Situation, SlipKind } from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import type { Persona } from "../people/persona.ts";
import { Rng } from "../rng.ts";
import type { World } from "../world/world.ts";

/** One turn of the person: what they write, and whether it ends the conversation. */
export interface UserTurn {
  content: string;
  end?: "done" | "gave_up";
  /** Details the person got wrong on purpose in this turn (a misread number), so checks do not blame the simulator. */
  misstated?: string[];
}

/** Everything the simulator side knows about one episode: the spec, the situation, its world and its person. */
export interface EpisodeSetup {
  agent: Agent;
  situation: Situation;
  world: World;
  persona: Persona;
  /** Which rollout of the situation this is (0 first): same situation, world and person; fresh choices. */
  rollout: number;
}

/** The seed for the choices of one rollout: the situation's own for the first, a derived one after. */
export function rolloutSeed(situation: Situation, rollout: number): number {
  return rollout === 0
    ? situation.seed
    : new Rng(situation.seed, "rollout", String(rollout)).uint32();
}

/** How a conversation opens: earlier contact the history axis asks for, then the person's first message. */
export interface Opening {
  history: ChatMessage[];
  message: string;
  /** The backend that actually wrote it, when not the writer's own (a fallback). */
  writer?: string;
  /** Why the writer's own backend did not write it. */
  fallbackError?: string;
}

/** The situation writer: renders a situation into the opening of the conversation. */
export interface SituationWriter {
  /** The backend that plays the role, as rows record it (`offline`, `openai:gpt-4.1`…). */
  readonly name: string;
  write(setup: EpisodeSetup): Promise<Opening>;
}

/** The simulated person for one episode; sees the conversation as the person would (text only). */
export interface UserSession {
  reply(conversation: readonly ChatMessage[]): Promise<UserTurn>;
}

/** The user model: plays the person of each episode. */
export interface UserSimulator {
  readonly name: string;
  start(setup: EpisodeSetup): UserSession;
}

/** One policy turn, and the slip it made when the policy is the offline one. */
export interface AgentTurn {
  message: AssistantMessage;
  slip?: { kind: SlipKind; detail: string };
}

/** The policy for one episode: sees the system prompt, the tools and the conversation, nothing of the world. */
export interface AgentSession {
  respond(conversation: readonly ChatMessage[]): Promise<AgentTurn>;
}

/** The agent role: the policy under training or evaluation. */
export interface AgentPolicy {
  readonly name: string;
  start(agent: Agent, seed: number): AgentSession;
}
