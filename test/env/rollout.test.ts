import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { Episode } from "../../env/episode.ts";
import { OfflineAgent } from "../../env/roles/offline-agent.ts";
import { offlineUser } from "../../env/roles/offline-user.ts";
import { OfflineWriter } from "../../env/roles/offline-writer.ts";
import type { AgentSession } from "../../env/roles/types.ts";
import { playEpisode, rollout } from "../../env/rollout.ts";
import {
  type AssistantMessage,
  type EpisodeDriver,
  type ResetRequest,
  RowSchema,
  type StepResult,
  StepResultSchema,
} from "../../spec/index.ts";
import { referenceSpec } from "../fixtures/reference-spec.ts";
import { situationOf } from "../fixtures/situations.ts";

const retail = Agent.from(referenceSpec);

/**
 * An episode seen only through JSON, as a client over the wire sees it: every request and result
 * crosses as text and is checked against the contract, and nothing else of the episode is reachable.
 */
class OverTheWire implements EpisodeDriver {
  readonly frames: string[] = [];
  constructor(readonly episode: Episode) {}
  async reset(request: ResetRequest = {}): Promise<StepResult> {
    return this.#cross(
      await this.episode.reset(JSON.parse(this.#send({ type: "reset", data: request })).data),
    );
  }
  async step(message: AssistantMessage): Promise<StepResult> {
    const sent = JSON.parse(this.#send({ type: "step", data: { message } }));
    return this.#cross(await this.episode.step(sent.data.message));
  }
  #send(frame: unknown): string {
    const text = JSON.stringify(frame);
    this.frames.push(text);
    return text;
  }
  #cross(result: StepResult): StepResult {
    return StepResultSchema.parse(
      JSON.parse(this.#send({ type: "observation", data: result })).data,
    );
  }
}

const policy = (seed: number) => new OfflineAgent({ slipRate: 1 }).start(retail, seed);

describe("rollout, the one loop that drives an episode", () => {
  it("runs the same conversation in process and over the wire, and the conversation is the episode's", async () => {
    for (const tool of ["get_order", "cancel_order", "update_address"]) {
      const situation = situationOf(retail, { tool, stance: "cooperative" }, 11);
      const local = new Episode({ spec: retail, situation });
      const here = await rollout(local, policy(situation.seed));
      const remote = new OverTheWire(new Episode({ spec: retail, situation }));
      const there = await rollout(remote, policy(situation.seed));
      expect(there.conversation).toEqual(here.conversation);
      expect(there.slips).toEqual(here.slips);
      expect(there.last).toEqual(here.last);
      expect(here.conversation).toEqual(local.messages);
      expect(here.last.done).toBe(true);
      expect(here.last.reward).toBe(local.reward().reward);
      expect(remote.frames.length).toBeGreaterThan(2);
    }
  });

  it("records the policy's slips at the index of the message that made them, and the row keeps them", async () => {
    let found = 0;
    for (let seed = 0; seed < 12; seed++) {
      const situation = situationOf(retail, { tool: "cancel_order" }, seed);
      const episode = new Episode({ spec: retail, situation });
      const result = await rollout(episode, policy(seed));
      for (const slip of result.slips) {
        found++;
        expect(result.conversation[slip.message]?.role).toBe("assistant");
      }
      expect(episode.row({ slips: result.slips }).episode.slips).toEqual(result.slips);
    }
    expect(found).toBeGreaterThan(0);
  });

  it("stops on a policy that fails or a message the episode refuses, and the row says why", async () => {
    const failing: AgentSession = {
      respond: async () => {
        throw new Error("model unreachable");
      },
    };
    const malformed: AgentSession = {
      respond: async () => ({ message: { role: "assistant", content: 42 } as never }),
    };
    for (const [session, why] of [
      [failing, /^agent: model unreachable$/],
      [malformed, /^agent: assistant message is invalid/],
    ] as const) {
      const episode = new Episode({ spec: retail, situation: situationOf(retail, {}) });
      const result = await rollout(episode, session);
      expect(result.error).toMatch(why);
      expect(result.last.done).toBe(false);
      episode.fail(new Error(result.error as string));
      expect(RowSchema.parse(episode.row()).episode).toMatchObject({ ended_by: "error" });
    }
  });

  it("is what playEpisode runs: the row's messages are the rollout's conversation", async () => {
    const situation = situationOf(retail, { tool: "get_order" }, 5);
    const row = await playEpisode(
      retail,
      situation,
      new OfflineAgent({ slipRate: 1 }),
      new OfflineWriter(),
      offlineUser,
      12,
    );
    const result = await rollout(new Episode({ spec: retail, situation }), policy(situation.seed));
    expect(row.messages).toEqual(result.conversation);
    expect(row.episode.slips).toEqual(result.slips);
  });
});
