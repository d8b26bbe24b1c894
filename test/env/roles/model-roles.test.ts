import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { parseBackend } from "../../../env/backends/backend.ts";
import { ChatClient } from "../../../env/backends/chat.ts";
import { Episode } from "../../../env/episode.ts";
import { assignRoles } from "../../../env/roles/assign.ts";
import { ModelAgent } from "../../../env/roles/model-agent.ts";
import { personView } from "../../../env/roles/model-user.ts";
import { simulate } from "../../../env/simulate.ts";
import { InputError } from "../../../env/util/errors.ts";
import { referenceSpec } from "../../fixtures/reference-spec.ts";
import { situationOf, withDefaultAxes } from "../../fixtures/situations.ts";
import {
  apiError,
  completion,
  OpenAICompatibleServer,
  type ReceivedRequest,
  type Scripted,
} from "../../support/openai-compatible-server.ts";

const retail = Agent.from(withDefaultAxes(referenceSpec));
let server: OpenAICompatibleServer;
const at = (model = "test-model") => `${model}@${server.url}`;
const fast = (model = "test-model") => ({
  provider: "openai-compatible" as const,
  model,
  baseURL: server.url,
  max_retries: 0,
  timeout_ms: 2_000,
});

beforeAll(async () => {
  server = await OpenAICompatibleServer.start();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

/** Which role a request came from, by what it carries. */
const roleOf = (r: ReceivedRequest) =>
  r.tools
    ? "agent"
    : String(r.messages[0]?.content).startsWith("You write the first message")
      ? "writer"
      : "user";

/** A small scripted agent model: look the order up, then report; asks when it has no id. */
function agentModel(r: ReceivedRequest): Scripted {
  const last = r.messages.at(-1);
  if (last?.role === "tool")
    return completion({
      content: "Your order is on its way. Is there anything else I can help you with?",
    });
  const id = /W\d{7}/.exec(r.messages.map((m) => m.content ?? "").join(" "))?.[0];
  return id
    ? completion({ toolCalls: [{ name: "get_order", arguments: { order_id: id } }] })
    : completion({ content: "Could you give me your order ID?" });
}

describe("a model-backed agent", () => {
  it("plays the policy: tool calls round-trip through the world", async () => {
    server.otherwise(agentModel);
    const situation = situationOf(retail, { tool: "get_order", stance: "cooperative" });
    const episode = new Episode({ spec: retail, situation });
    const first = await episode.reset();
    const session = new ModelAgent(parseBackend(at(), "agent")).start(retail);
    const turn = await session.respond(episode.messages);
    expect(turn.message.tool_calls?.[0]?.function.name).toBe("get_order");
    const tools = await episode.step(turn.message);
    expect(tools.observation.messages[0]).toMatchObject({ role: "tool", name: "get_order" });
    const reply = await session.respond(episode.messages);
    expect(reply.message.content).toMatch(/on its way/);
    const [ask, report] = server.requests;
    expect(ask?.tools).toHaveLength(retail.tools.length);
    expect(ask?.messages.map((m) => m.role)).toEqual(first.observation.messages.map((m) => m.role));
    expect(report?.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_1" });
    expect(report?.messages.at(-2)).toMatchObject({
      role: "assistant",
      tool_calls: [{ id: "call_1", type: "function" }],
    });
  });

  it("gives a tool call a fresh id when the server reuses one from an earlier turn or leaves it empty", async () => {
    server.script(
      completion({
        toolCalls: [{ id: "call_1", name: "get_order", arguments: { order_id: "W1" } }],
      }),
    );
    const agent = new ModelAgent(parseBackend(fast(), "agent"));
    const earlier = {
      role: "assistant" as const,
      content: null,
      tool_calls: [
        {
          id: "call_1",
          type: "function" as const,
          function: { name: "list_orders", arguments: "{}" },
        },
      ],
    };
    const { message } = await agent
      .start(retail)
      .respond([
        { role: "user", content: "hi" },
        earlier,
        { role: "tool", tool_call_id: "call_1", name: "list_orders", content: "[]" },
      ]);
    expect(message.tool_calls?.map((c) => c.id)).toEqual(["call_1_t3"]);
    server.script(
      completion({
        toolCalls: [
          { id: "", name: "get_order", arguments: { order_id: "W1" } },
          { id: "", name: "get_order", arguments: { order_id: "W2" } },
        ],
      }),
    );
    const unnamed = await agent.start(retail).respond([{ role: "user", content: "hi" }]);
    expect(unnamed.message.tool_calls?.map((c) => c.id)).toEqual(["call_0_t1", "call_1_t1"]);
  });

  it("refuses a turn the server cut off at its token limit, naming it; a call that sets its own limit may be cut", async () => {
    server.script(
      completion({ content: "I will refund your order and then", finishReason: "length" }),
    );
    const agent = new ModelAgent(parseBackend(fast(), "agent"));
    await expect(agent.start(retail).respond([{ role: "user", content: "hi" }])).rejects.toThrow(
      /the reply was cut off at the token limit \(finish_reason length\)/,
    );
    server.script(completion({ content: "yes", finishReason: "length" }));
    const short = await new ChatClient(parseBackend(fast(), "judge"), "judge").complete({
      messages: [{ role: "user", content: "pass?" }],
      max_tokens: 1,
    });
    expect(short.content).toBe("yes");
  });

  it("records logprobs on every turn when asked", async () => {
    server.script(
      completion({
        content: "Hello there",
        logprobs: [
          { token: "Hello", logprob: -0.25 },
          { token: " there", logprob: -0.5 },
        ],
        model: "test-model-0125",
        completionTokens: 2,
      }),
    );
    const agent = new ModelAgent(parseBackend({ ...fast(), temperature: 0.6, seed: 11 }, "agent"), {
      logprobs: true,
    });
    const turn = await agent.start(retail).respond([{ role: "user", content: "hi" }]);
    expect(turn.message).toMatchObject({
      content: "Hello there",
      logprob: -0.75,
      n_tokens: 2,
      token_logprobs: [-0.25, -0.5],
      policy_version: "test-model-0125@fp_test",
      sampling: { temperature: 0.6, seed: 11 },
    });
    expect(server.requests[0]).toMatchObject({ logprobs: true, temperature: 0.6, seed: 11 });
  });

  it("leaves logprob out, never 0, when the server returns none or not one per token, and warns", async () => {
    const agent = new ModelAgent(parseBackend(fast(), "agent"), { logprobs: true });
    server.script(
      completion({ content: "Hello there", completionTokens: 3 }),
      completion({
        content: "Hello there",
        logprobs: [{ token: "Hello", logprob: -0.25 }],
        completionTokens: 3,
      }),
      completion({
        content: "Hello there",
        logprobs: [
          { token: "Hello", logprob: -0.25 },
          { token: " there", logprob: -0.5 },
        ],
        completionTokens: 3,
      }),
    );
    for (let n = 0; n < 2; n++) {
      const { message } = await agent.start(retail).respond([{ role: "user", content: "hi" }]);
      expect(message.n_tokens).toBe(3);
      expect(message).not.toHaveProperty("logprob");
      expect(message).not.toHaveProperty("token_logprobs");
    }
    // One short: the end-of-turn token a server counted but did not report.
    const { message } = await agent.start(retail).respond([{ role: "user", content: "hi" }]);
    expect(message).toMatchObject({ logprob: -0.75, n_tokens: 3 });
    server.otherwise(completion({ content: "Hi.", completionTokens: 2 }));
    const data = await simulate(retail, { rows: 2, agent: fast(), logprobs: true, maxTurns: 2 });
    expect(data.warnings).toEqual([
      expect.stringMatching(/^\d+ of \d+ agent turns carry no logprob/),
    ]);
  });

  it("retries a 429 honouring retry-after, and a 500, then succeeds", async () => {
    server.script(
      apiError(429, "Rate limit reached", { "retry-after": "0" }),
      apiError(503, "overloaded"),
      completion({ content: "ok" }),
    );
    const agent = new ModelAgent(parseBackend({ ...fast(), max_retries: 2 }, "agent"));
    const turn = await agent.start(retail).respond([{ role: "user", content: "hi" }]);
    expect(turn.message.content).toBe("ok");
    expect(server.requests).toHaveLength(3);
  });

  it("gives up after its retries on a slow server, and the row ends with the error, not a made-up turn", async () => {
    server.otherwise({ ...completion({ content: "too late" }), delayMs: 400 });
    const data = await simulate(retail, {
      rows: 1,
      agent: { ...fast(), timeout_ms: 100, max_retries: 1 },
    });
    const [row] = await data.rows();
    expect(server.requests).toHaveLength(2);
    expect(row?.episode).toMatchObject({
      ended_by: "error",
      turns: 0,
      errors: [
        expect.stringMatching(
          /^agent: test-model@http:\/\/127\.0\.0\.1:\d+\/v1: .*(timed out|timeout)/i,
        ),
      ],
    });
    expect(row?.messages.filter((m) => m.role === "assistant")).toHaveLength(0);
    expect(data.degraded.role_errors).toEqual({
      rows: 1,
      last_error: row?.episode.errors[0],
    });
    expect(data.warnings).toEqual([
      expect.stringMatching(/^1 of 1 rows ended early because the agent or the person failed/),
    ]);
  });
});

describe("a model-backed writer and user", () => {
  it("the writer drafts the opening from the situation; the user plays the person from the brief and ends with a marker", async () => {
    server.otherwise((r) =>
      roleOf(r) === "writer"
        ? completion({ content: "hey, where is my order W1234567??" })
        : roleOf(r) === "user"
          ? completion({ content: "great, thanks ###STOP###" })
          : agentModel(r),
    );
    const data = await simulate(retail, {
      rows: 2,
      agent: at("agent-model"),
      simulator: at("writer-model"),
      userModel: at("user-model"),
    });
    const rows = await data.rows();
    for (const row of rows) {
      expect(row.models).toEqual({
        agent: at("agent-model"),
        simulator: at("writer-model"),
        user_model: at("user-model"),
      });
      expect(
        row.messages.find((m, i) => m.role === "user" && i > row.episode.history_turns)?.content,
      ).toBe("hey, where is my order W1234567??");
      expect(row.episode.ended_by).toBe("user_done");
      expect(row.messages.at(-1)).toEqual({ role: "user", content: "great, thanks" });
    }
    const writerRequest = server.requests.find((r) => roleOf(r) === "writer");
    expect(writerRequest?.messages[1]?.content).toMatch(/The person wants to /);
    const userRequest = server.requests.find((r) => roleOf(r) === "user") as ReceivedRequest;
    expect(userRequest.messages[0]?.content).toMatch(
      /^You are .+, contacting a customer service agent/,
    );
    expect(userRequest.messages.at(-1)?.role).toBe("user");
    expect(userRequest.messages.some((m) => m.role === "tool" || m.tool_calls)).toBe(false);
    expect(data.degraded).toEqual({});
  });

  it("flips roles for the user model: the agent speaks as user, the person as assistant", () => {
    expect(
      personView("brief", [
        { role: "system", content: "agent prompt" },
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "x", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c", name: "x", content: "{}" },
        { role: "assistant", content: "how can I help?" },
      ]),
    ).toEqual([
      { role: "system", content: "brief" },
      { role: "assistant", content: "hi" },
      { role: "user", content: "how can I help?" },
    ]);
  });

  it("a user model that gives up ends the row as user_gave_up", async () => {
    server.otherwise((r) =>
      roleOf(r) === "user" ? completion({ content: "forget it ###GIVE_UP###" }) : agentModel(r),
    );
    const [row] = await (
      await simulate(retail, { rows: 1, agent: at(), userModel: at("user-model") })
    ).rows();
    expect(row?.episode.ended_by).toBe("user_gave_up");
  });

  it("a user model that fails mid-episode ends the row with its error, never a made-up turn", async () => {
    server.otherwise((r) =>
      roleOf(r) === "user" ? apiError(500, "user model down") : agentModel(r),
    );
    const data = await simulate(retail, { rows: 1, userModel: { ...fast("user-model") } });
    const [row] = await data.rows();
    expect(row?.episode).toMatchObject({
      ended_by: "error",
      errors: [expect.stringMatching(/^user: user-model@.*: 500 user model down/)],
    });
    expect(data.degraded.role_errors?.rows).toBe(1);
    const last = row?.messages.at(-1);
    expect(last?.role).toBe("assistant");
  });

  it("falls back to the offline writer when the writer fails, and says so on the data", async () => {
    server.otherwise((r) =>
      roleOf(r) === "writer" ? apiError(500, "writer exploded") : agentModel(r),
    );
    const data = await simulate(retail, { rows: 3, simulator: { ...fast("writer-model") } });
    const rows = await data.rows();
    expect(data.degraded.generator_fallback).toEqual({
      rows: 3,
      last_error: expect.stringMatching(/writer-model@.*: 500 writer exploded/),
    });
    expect(data.search).toMatchObject({
      status: "recorded",
      writer_errors: [expect.stringMatching(/500 writer exploded/)],
    });
    for (const row of rows) {
      expect(row.models.simulator).toBe("offline");
      expect(row.episode.writer_fallback).toEqual({
        writer: expect.stringMatching(/^writer-model@/),
        error: expect.stringMatching(/writer exploded/),
      });
      expect(row.episode.errors).toEqual([]);
    }
  });
});

describe("who plays what", () => {
  it("records one model in more than one role, naming the option that separates them", async () => {
    server.otherwise((r) =>
      roleOf(r) === "user" ? completion({ content: "bye ###STOP###" }) : agentModel(r),
    );
    const data = await simulate(retail, { rows: 1, agent: at("same"), userModel: at("same") });
    expect(data.degraded.same_model).toEqual({ model: at("same"), roles: ["agent", "userModel"] });
    expect(data.warnings).toEqual([
      expect.stringMatching(
        /plays agent and userModel: .*pass a different model to userModel \(--user-model\)/,
      ),
    ]);
    const offline = assignRoles({});
    expect(offline.degraded).toEqual({});
  });

  it("warns when the judge is of the agent's family", () => {
    const roles = assignRoles({ agent: at("gpt-4.1"), judge: "openai:gpt-4o-mini" });
    expect(roles.warnings).toEqual([
      expect.stringMatching(
        /the judge openai:gpt-4o-mini is of the agent's family \(gpt, agent gpt-4\.1@/,
      ),
    ]);
    expect(
      assignRoles({ agent: at("gpt-4.1"), judge: "phi-4@http://127.0.0.1:1/v1" }).warnings,
    ).toEqual([]);
  });

  it("refuses a decision model as agent, writer or user before any call is made", async () => {
    server.otherwise(agentModel);
    for (const role of ["agent", "simulator", "userModel"] as const) {
      await expect(
        simulate(retail, { rows: 2, [role]: `typesafe:jev@${server.url}` }),
      ).rejects.toThrow(new RegExp(`${role}: typesafe:jev@.* is a decision model`));
    }
    await expect(simulate(retail, { rows: 2, agent: "typesafe:offline" })).rejects.toThrow(
      InputError,
    );
    expect(server.requests).toHaveLength(0);
  });

  it("refuses an OpenAI backend without a key before any call", () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      expect(() => assignRoles({ agent: "openai:gpt-4.1" })).toThrow(
        /openai:gpt-4\.1 needs an API key in the environment variable OPENAI_API_KEY/,
      );
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });
});
