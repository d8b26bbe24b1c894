import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { MAX_USER_TURN_BYTES } from "../../../env/roles/model-user.ts";
import { MAX_OPENING_BYTES } from "../../../env/roles/model-writer.ts";
import { simulate } from "../../../env/simulate.ts";
import { referenceSpec } from "../../fixtures/reference-spec.ts";
import { withDefaultAxes } from "../../fixtures/situations.ts";
import {
  completion,
  OpenAICompatibleServer,
  type ReceivedRequest,
} from "../../support/openai-compatible-server.ts";

const retail = Agent.from(withDefaultAxes(referenceSpec));
let server: OpenAICompatibleServer;
const model = (name: string) => ({
  provider: "openai-compatible" as const,
  model: name,
  baseURL: server.url,
  max_retries: 0,
  timeout_ms: 2_000,
});
const MEGABYTE = "é".repeat(512 * 1024);

beforeAll(async () => {
  server = await OpenAICompatibleServer.start();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

/** The agent greets; the writer and the person answer `writer` and `person`. */
function play(writer: string, person: string) {
  server.otherwise((r: ReceivedRequest) =>
    r.tools
      ? completion({ content: "Hello! How can I help you today?" })
      : completion({
          content: String(r.messages[0]?.content).startsWith("You write the first message")
            ? writer
            : person,
        }),
  );
}

describe("every role's message has a size cap, blamed on the role that sent it", () => {
  it("a person's turn over 16 KiB ends the row as the user model's error, not the agent's", async () => {
    expect(MAX_USER_TURN_BYTES).toBe(16 * 1024);
    play("Hi, where is my order?", MEGABYTE);
    const data = await simulate(retail, {
      rows: 1,
      maxTurns: 3,
      agent: model("agent-model"),
      simulator: model("writer-model"),
      userModel: model("user-model"),
    });
    const [row] = await data.rows();
    expect(row?.episode.ended_by).toBe("error");
    expect(row?.episode.errors).toEqual([
      expect.stringMatching(
        /^user: user-model@.*: the user model's message is 1048576 bytes; a person's turn holds at most 16384 \(MAX_USER_TURN_BYTES\)$/,
      ),
    ]);
    // The turn never reached the conversation, so no one answered it.
    expect(row?.messages.every((m) => (m.content?.length ?? 0) < MAX_USER_TURN_BYTES)).toBe(true);
    expect(data.degraded.role_errors?.rows).toBe(1);
  });

  it("an opening over 16 KiB is the writer's failure: the offline writer opens instead, and the row says so", async () => {
    expect(MAX_OPENING_BYTES).toBe(16 * 1024);
    play(MEGABYTE, "Thanks, that is all. ###STOP###");
    const data = await simulate(retail, {
      rows: 2,
      maxTurns: 2,
      agent: model("agent-model"),
      simulator: model("writer-model"),
      userModel: model("user-model"),
    });
    for (const row of await data.rows()) {
      expect(row.models.simulator).toBe("offline");
      expect(row.episode.writer_fallback).toEqual({
        writer: expect.stringMatching(/^writer-model@/),
        error: expect.stringMatching(
          /^writer-model@.*: the writer's opening is 1048576 bytes; an opening holds at most 16384 \(MAX_OPENING_BYTES\)$/,
        ),
      });
      expect(row.episode.errors).toEqual([]);
    }
    expect(data.degraded.generator_fallback?.rows).toBe(2);
    expect(data.warnings).toContainEqual(
      expect.stringMatching(/^2 of 2 openings were written by the offline writer/),
    );
  });

  it("takes messages up to the cap", async () => {
    const opening = "a".repeat(MAX_OPENING_BYTES);
    play(opening, `${"b".repeat(MAX_USER_TURN_BYTES - 20)} ###STOP###`);
    const data = await simulate(retail, {
      rows: 1,
      maxTurns: 2,
      agent: model("agent-model"),
      simulator: model("writer-model"),
      userModel: model("user-model"),
    });
    const [row] = await data.rows();
    expect(row?.episode.writer_fallback).toBeUndefined();
    expect(row?.episode.ended_by).toBe("user_done");
    expect(row?.messages.some((m) => m.role === "user" && m.content === opening)).toBe(true);
  });
});
