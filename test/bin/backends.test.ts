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
/** Openings asked of the flaky writer so far: it fails every other one. */
let flakyWrites = 0;

beforeAll(async () => {
  server = await OpenAICompatibleServer.start();
  // An agent model that looks the order up and reports; a user model that thanks and stops.
  server.otherwise((r: ReceivedRequest) => {
    if (r.model === "broken-agent") return apiError(500, "agent model down");
    if (r.model === "broken-writer") return apiError(500, "writer model down");
    if (r.model === "flaky-writer")
      return flakyWrites++ % 2 === 0
        ? apiError(500, "writer model hiccup")
        : completion({ content: "Hi, could you check on my order?" });
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

  const writerRun = async (model: string) => {
    const out = join(await mkdtemp(join(tmpdir(), "rehearse-cli-writer-")), "data.jsonl");
    return rehearse(
      "simulate",
      "--spec",
      join(ROOT, "examples/retail-orders.json"),
      "--rows",
      "4",
      "--concurrency",
      "1",
      "--out",
      out,
      "--simulator",
      `{"provider":"openai-compatible","model":"${model}","baseURL":"${server.url}","max_retries":0}`,
      "--json",
    );
  };

  it("exits 1 when every opening fell back to the offline writer, and warns how many and why", async () => {
    const { stdout, stderr, code } = await writerRun("broken-writer");
    expect(code).toBe(1);
    const summary = JSON.parse(stdout);
    expect(summary.rows).toBe(4);
    expect(summary.degraded.generator_fallback).toEqual({
      rows: 4,
      last_error: expect.stringMatching(/broken-writer@.*500 writer model down/),
    });
    expect(summary.warnings).toContainEqual(
      expect.stringMatching(
        /^4 of 4 openings were written by the offline writer because the writer failed \(episode\.writer_fallback\); last error: broken-writer@.*500 writer model down/,
      ),
    );
    expect(stderr).toMatch(
      /every opening fell back to the offline writer: the writer \(--simulator\) never worked; last error: broken-writer@.*writer model down/,
    );
  });

  it("exits 0 with the warning when only some openings fell back", async () => {
    flakyWrites = 0;
    const { stdout, stderr, code } = await writerRun("flaky-writer");
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const summary = JSON.parse(stdout);
    expect(summary.degraded.generator_fallback.rows).toBe(2);
    expect(summary.warnings).toContainEqual(
      expect.stringMatching(
        /^2 of 4 openings were written by the offline writer.*writer model hiccup/,
      ),
    );
  });
});
