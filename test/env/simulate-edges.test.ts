import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../env/dataset.ts";
import type { AgentPolicy } from "../../env/roles/types.ts";
import { SimulationInterrupted, simulate } from "../../env/simulate.ts";
import { financeSpec } from "../fixtures/reference-spec.ts";
import { apiError, OpenAICompatibleServer } from "../support/openai-compatible-server.ts";
import { offlineRows, specOf } from "../support/specs.ts";

// simulate() on specs unlike the examples, with episodes that break or stall, and its sidecars.

describe("unusual specs run end to end", () => {
  it("enum values with regex characters", async () => {
    const rows = await offlineRows(
      specOf([
        [
          "create_course",
          {
            language: { type: "string", enum: ["python", "c++"] },
            public: { type: "boolean" },
            seats: { type: "integer", minimum: 1, maximum: 50 },
          },
          ["language", "public", "seats"],
        ],
      ]),
    );
    expect(rows.filter((r) => r.episode.ended_by === "error")).toEqual([]);
    const calls = rows.flatMap((r) =>
      r.messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : [])),
    );
    for (const call of calls)
      expect(
        typeof JSON.parse(call.function.arguments).public === "boolean" ||
          !("public" in JSON.parse(call.function.arguments)),
      ).toBe(true);
  });

  it("names that are also Object.prototype's (a constructor stance, a get_constructor tool)", async () => {
    const spec = specOf(
      [["get_constructor", { constructor_id: { type: "string" } }, ["constructor_id"]]],
      {
        axes: {
          stances: [{ name: "constructor", description: "builds things" }],
          histories: [{ name: "constructor", description: "came before" }],
        },
      },
    );
    const rows = await offlineRows(spec, 12);
    expect(rows).toHaveLength(12);
    expect(rows.filter((r) => r.episode.ended_by === "error")).toEqual([]);
  });

  it("nested object and array arguments are given and passed as structured values", async () => {
    const rows = await offlineRows(
      specOf([
        [
          "create_shipment",
          {
            address: {
              type: "object",
              properties: {
                street: { type: "string" },
                zip: { type: "string", pattern: "^[0-9]{5}$" },
              },
              required: ["street", "zip"],
            },
            speed: { type: "string", enum: ["standard", "express"] },
          },
          ["address", "speed"],
        ],
      ]),
      12,
    );
    for (const row of rows) {
      expect(JSON.stringify(row.messages)).not.toContain("[object Object]");
      for (const m of row.messages)
        for (const call of m.role === "assistant" ? (m.tool_calls ?? []) : [])
          expect(typeof JSON.parse(call.function.arguments).address).not.toBe("string");
    }
  });
});

describe("a run survives what one episode does", () => {
  /** A policy whose every turn is a message the episode refuses. */
  const broken: AgentPolicy = {
    name: "broken",
    start: () => ({ respond: async () => ({ message: { role: "assistant", content: "" } }) }),
  };

  it("a refused turn ends that row with the error; the run goes on", async () => {
    const data = await simulate(financeSpec, { rows: 3, agent: broken });
    const rows = await data.rows();
    expect(rows).toHaveLength(3);
    for (const row of rows)
      expect(row.episode).toMatchObject({
        ended_by: "error",
        errors: [expect.stringMatching(/expected text content or at least one tool call/)],
      });
  });

  it("a slow episode holds back a bounded window of finished ones", async () => {
    let started = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let first = true;
    const slow: AgentPolicy = {
      name: "slow",
      start: () => {
        started++;
        const waits = first;
        first = false;
        return {
          respond: async () => {
            if (waits) await gate;
            return {
              message: {
                role: "assistant",
                content: "Is there anything else I can help you with?",
              },
            };
          },
        };
      },
    };
    const run = simulate(financeSpec, { rows: 50, agent: slow, concurrency: 2 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(started).toBeLessThanOrEqual(4 + 1);
    release();
    expect((await run).size).toBe(50);
  });
});

describe("sidecars", () => {
  let server: OpenAICompatibleServer;
  beforeAll(async () => {
    server = await OpenAICompatibleServer.start();
    server.otherwise((_, n) => apiError(500, `writer down (${n % 3})`));
  });
  afterAll(async () => {
    await server.close();
  });

  it("are the same for the same rows whatever the concurrency, and a resumed run keeps the fallback count", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rehearse-sidecar-"));
    const simulator = {
      provider: "openai-compatible" as const,
      model: "w",
      baseURL: server.url,
      max_retries: 0,
    };
    await simulate(financeSpec, { rows: 30, simulator, out: join(dir, "a.jsonl"), concurrency: 1 });
    await simulate(financeSpec, { rows: 30, simulator, out: join(dir, "b.jsonl"), concurrency: 6 });
    const a = JSON.parse(await readFile(join(dir, "a.jsonl.meta.json"), "utf8"));
    const b = JSON.parse(await readFile(join(dir, "b.jsonl.meta.json"), "utf8"));
    expect(b.degraded).toEqual(a.degraded);
    expect(a.degraded.generator_fallback.rows).toBe(30);

    const controller = new AbortController();
    const cut = join(dir, "c.jsonl");
    await expect(
      simulate(financeSpec, {
        rows: 30,
        simulator,
        out: cut,
        signal: controller.signal,
        onProgress: (d) => d === 12 && controller.abort(),
      }),
    ).rejects.toThrow(SimulationInterrupted);
    const partial = await loadDataset(`${cut}.partial`);
    expect(partial.size).toBe((await partial.rows()).length);
    const resumed = await simulate(financeSpec, { rows: 30, simulator, out: cut, resume: true });
    expect(resumed.degraded.generator_fallback?.rows).toBe(30);
  });
});
