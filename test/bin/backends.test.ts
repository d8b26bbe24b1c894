import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RowSchema } from "../../spec/index.ts";
import { ROOT, rehearse } from "../support/cli.ts";
import {
  apiError,
  completion,
  OpenAICompatibleServer,
  type ReceivedRequest,
} from "../support/openai-compatible-server.ts";

let server: OpenAICompatibleServer;

beforeAll(async () => {
  server = await OpenAICompatibleServer.start();
  // An agent model that looks the order up and reports; a user model that thanks and stops.
  server.otherwise((r: ReceivedRequest) => {
    if (r.model === "broken-agent") return apiError(500, "agent model down");
    if (!r.tools) return completion({ content: "thanks, that's all ###STOP###" });
    if (r.messages.at(-1)?.role === "tool")
      return completion({
        content: "Found it. Anything else?",
        logprobs: [
          { token: "Found", logprob: -0.1 },
          { token: " it", logprob: -0.2 },
        ],
      });
    return completion({
      toolCalls: [{ name: "list_orders", arguments: { email: "someone@proton.me" } }],
      logprobs: [],
    });
  });
});
afterAll(async () => {
  await server.close();
});

describe("rehearse simulate against an OpenAI-compatible server", () => {
  it("runs end to end with --agent <model>@<url>, --user-model and --logprobs", async () => {
    const out = join(await mkdtemp(join(tmpdir(), "rehearse-cli-model-")), "data.jsonl");
    const { stdout, code } = await rehearse(
      "simulate",
      "--spec",
      join(ROOT, "examples/retail-orders.json"),
      "--rows",
      "3",
      "--out",
      out,
      "--agent",
      `qwen-test@${server.url}`,
      "--user-model",
      `{"provider":"openai-compatible","model":"llama-user","baseURL":"${server.url}","temperature":0.8}`,
      "--logprobs",
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/wrote {5}3 rows/);
    const rows = (await readFile(out, "utf8"))
      .trim()
      .split("\n")
      .map((l) => RowSchema.parse(JSON.parse(l)));
    for (const row of rows) {
      expect(row.models).toEqual({
        agent: `qwen-test@${server.url}`,
        simulator: "offline",
        user_model: `llama-user@${server.url}`,
      });
      const turns = row.messages
        .filter((m) => m.role === "assistant")
        .slice(row.episode.history_turns / 2);
      expect(turns.length).toBeGreaterThan(0);
      for (const turn of turns)
        expect(turn).toMatchObject({
          logprob: expect.any(Number),
          n_tokens: expect.any(Number),
          policy_version: "test-model-0125@fp_test",
        });
    }
    expect(
      server.requests
        .filter((r) => !r.tools)
        .every((r) => r.model === "llama-user" && r.temperature === 0.8),
    ).toBe(true);
    expect(
      server.requests
        .filter((r) => r.tools)
        .every((r) => r.model === "qwen-test" && r.logprobs === true),
    ).toBe(true);
  });

  it("exits 1 when every row ended early because a role failed, and says why", async () => {
    const out = join(await mkdtemp(join(tmpdir(), "rehearse-cli-broken-")), "data.jsonl");
    const { stdout, stderr, code } = await rehearse(
      "simulate",
      "--spec",
      join(ROOT, "examples/retail-orders.json"),
      "--rows",
      "2",
      "--out",
      out,
      "--agent",
      `{"provider":"openai-compatible","model":"broken-agent","baseURL":"${server.url}","max_retries":0}`,
    );
    expect(code).toBe(1);
    expect(stdout).toMatch(/ended {5}error 2/);
    expect(stdout).toMatch(/warning {3}2 of 2 rows ended early/);
    expect(stderr).toMatch(
      /every row ended early because a role failed; last error: agent: broken-agent@.*500 agent model down/,
    );
  });
});
