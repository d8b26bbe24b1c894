import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { loadDataset } from "../../env/dataset.ts";
import { Episode } from "../../env/episode.ts";
import { llmGrade } from "../../env/grade/judges.ts";
import { planSituations } from "../../env/plan.ts";
import type { AgentPolicy } from "../../env/roles/types.ts";
import { SimulationInterrupted, simulate } from "../../env/simulate.ts";
import { IdentifierReader } from "../../env/text/identifiers.ts";
import { createWorld } from "../../env/world/index.ts";
import type { AgentSpec, Row } from "../../spec/index.ts";
import { financeSpec, helpdeskSpec } from "../fixtures/reference-spec.ts";
import { situationOf } from "../fixtures/situations.ts";
import {
  apiError,
  completion,
  OpenAICompatibleServer,
} from "../support/openai-compatible-server.ts";

/** A spec of OpenAI tools, each `[name, properties, required]`. */
function specOf(
  tools: [string, Record<string, unknown>, string[]][],
  extra: Partial<AgentSpec> = {},
): AgentSpec {
  return {
    name: "t",
    system_prompt: "You help.",
    policy: [],
    tools: tools.map(([name, properties, required]) => ({
      type: "function" as const,
      function: {
        name,
        description: name.replace(/_/g, " "),
        parameters: { type: "object" as const, properties, required },
      },
    })),
    ...extra,
  };
}

/** For each tool, in a normal world with a working tool: the person's goal call is accepted by the world. */
async function goalCallsWork(spec: AgentSpec): Promise<void> {
  const agent = Agent.from(spec);
  for (const tool of agent.tools) {
    const episode = new Episode({
      spec: agent,
      situation: situationOf(agent, { tool: tool.name }),
    });
    await episode.reset();
    const goal = episode.goal;
    const answer = episode.world.call(goal.tool, goal.arguments);
    expect(
      answer.error ?? "",
      `${goal.tool}(${JSON.stringify(goal.arguments)}): ${answer.content}`,
    ).not.toMatch(/invalid_arguments|placeholder_argument/);
  }
}

async function offlineRows(spec: AgentSpec, rows = 40): Promise<Row[]> {
  return (await simulate(spec, { rows, slipRate: 0, preferSuccess: false })).rows();
}

describe("identifiers of every shape", () => {
  it("widens an example with too few digits instead of searching forever", async () => {
    const spec = specOf([
      ["get_order", { order_id: { type: "string", description: "e.g. ORD1" } }, ["order_id"]],
    ]);
    const world = createWorld({ spec, situation: situationOf(spec, {}), size: 500 });
    expect(world.person.ids.order_id).toMatch(/^ORD\d{4}$/);
  });

  it("refuses, naming the entity, an id pattern with room for too few ids", () => {
    const spec = specOf([
      ["get_order", { order_id: { type: "string", pattern: "^[0-9]$" } }, ["order_id"]],
    ]);
    expect(() => createWorld({ spec, situation: situationOf(spec, {}), size: 50 })).toThrow(
      /order identifiers: the pattern that shapes them leaves room for too few distinct ids/,
    );
  });

  it("never reads an id out of an amount, and numeric ids survive the conversation", async () => {
    const spec = specOf([
      ["get_order", { order_id: { type: "string", pattern: "^[0-9]+$" } }, ["order_id"]],
      [
        "refund_order",
        { order_id: { type: "string", pattern: "^[0-9]+$" }, amount: { type: "number" } },
        ["order_id", "amount"],
      ],
    ]);
    const reader = new IdentifierReader(Agent.from(spec));
    expect(reader.read("refund my order 1380742 of 289.20 please, or 12.5")).toEqual(["1380742"]);
    const rows = await offlineRows(spec);
    for (const row of rows) expect(row.sim_faults, row.id).toEqual([]);
    const refunds = rows
      .flatMap((r) =>
        r.messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : [])),
      )
      .filter((c) => c.function.name === "refund_order");
    expect(refunds.length).toBeGreaterThan(0);
    for (const call of refunds)
      expect(JSON.parse(call.function.arguments).order_id).toMatch(/^\d{5,8}$/);
  });

  it("makes integer ids for integer parameters and uuids for uuid ones, which the world accepts", async () => {
    const integer = specOf([
      ["get_order", { order_id: { type: "integer" } }, ["order_id"]],
      [
        "cancel_order",
        { order_id: { type: "integer" }, reason: { type: "string" } },
        ["order_id", "reason"],
      ],
    ]);
    await goalCallsWork(integer);
    const uuid = specOf([
      ["get_order", { order_id: { type: "string", format: "uuid" } }, ["order_id"]],
    ]);
    await goalCallsWork(uuid);
    const rows = await offlineRows(integer);
    expect(
      rows.filter((r) => r.conduct.length === 0 && r.episode.ended_by === "user_done").length,
    ).toBeGreaterThan(20);
    const world = createWorld({ spec: uuid, situation: situationOf(uuid, {}) });
    expect(world.person.ids.order_id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it("fills fields from their pattern and format before their name", async () => {
    await goalCallsWork(
      specOf([
        [
          "book_appointment",
          {
            date: { type: "string", format: "date" },
            time: { type: "string", pattern: "^[0-2][0-9]:[0-5][0-9]$" },
            customer_id: { type: "string" },
          },
          ["date", "time", "customer_id"],
        ],
        ["get_customer", { customer_id: { type: "string" } }, ["customer_id"]],
      ]),
    );
  });
});

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

  it("a search tool matches the query against the records' text", () => {
    const spec = specOf([
      ["search_products", { query: { type: "string" }, limit: { type: "integer" } }, ["query"]],
      ["get_product", { product_id: { type: "string" } }, ["product_id"]],
    ]);
    const world = createWorld({ spec, situation: situationOf(spec, { tool: "search_products" }) });
    const products = world.snapshot().collections.products ?? [];
    const word = String(products[0]?.name).split(" ")[0] as string;
    const found = JSON.parse(world.call("search_products", { query: word }).content)
      .products as Record<string, unknown>[];
    expect(found.length).toBeGreaterThan(0);
    expect(found.length).toBeLessThan(products.length);
    for (const p of found) expect(JSON.stringify(p).toLowerCase()).toContain(word.toLowerCase());
  });

  it("a tool outside every rule's scope is still planned, with the rule none", () => {
    const spec = specOf(
      [
        ["get_order", { order_id: { type: "string" } }, ["order_id"]],
        [
          "refund_order",
          { order_id: { type: "string" }, amount: { type: "number" } },
          ["order_id", "amount"],
        ],
      ],
      {
        policy: [
          { id: "confirm_refunds", text: "Confirm before any refund.", tools: ["refund_order"] },
        ],
      },
    );
    const plan = planSituations(spec, { rows: 100 });
    expect(new Set(plan.cells.map((c) => c.axes.tool))).toEqual(
      new Set(["get_order", "refund_order"]),
    );
    expect(
      plan.cells.filter((c) => c.axes.tool === "get_order").every((c) => c.axes.rule === "none"),
    ).toBe(true);
  });

  it("refuses schemas that do not compile or require what they do not declare, before anything runs", () => {
    expect(() =>
      Agent.from(specOf([["get_order", { order_id: { type: "strng" } }, ["order_id"]]])),
    ).toThrow(/tools\[0\]\.function\.parameters: not a valid JSON Schema/);
    expect(() =>
      Agent.from(
        specOf([
          [
            "get_order",
            { order_id: { type: "string", pattern: "^ORD\\-[0-9]{6}$" } },
            ["order_id"],
          ],
        ]),
      ),
    ).toThrow(/not a valid JSON Schema/);
    expect(() =>
      Agent.from(
        specOf([["get_order", { order_id: { type: "string" } }, ["order_id", "orderId"]]]),
      ),
    ).toThrow(
      /tools\[0\]\.function\.parameters\.required\[1\]: "orderId" is required but not among the properties \(order_id\)/,
    );
  });
});

describe("the world cannot be rewritten by a call", () => {
  it("a create ignores undeclared arguments and never takes an existing record's id", () => {
    const world = createWorld({
      spec: helpdeskSpec,
      situation: situationOf(helpdeskSpec, { tool: "createTicket" }),
    });
    const existing = world.call("listTickets", { userEmail: world.person.email });
    const ticket = (JSON.parse(existing.content).tickets as Record<string, unknown>[])[0] as Record<
      string,
      unknown
    >;
    const created = JSON.parse(
      world.call("createTicket", {
        userEmail: world.person.email,
        subject: "VPN is down again",
        priority: "high",
        ticketId: ticket.ticketId,
      } as never).content,
    );
    expect(created.ticketId).not.toBe(ticket.ticketId);
    const after = JSON.parse(world.call("getTicket", { ticketId: ticket.ticketId }).content);
    expect(after.subject).toBe(ticket.subject);
  });

  it("arguments that are not JSON do not use up a scheduled fault", () => {
    const world = createWorld({
      spec: financeSpec,
      situation: situationOf(financeSpec, { tool: "get_balance", condition: "timeout" }),
    });
    expect(world.call("get_balance", "{not json").error).toBe("invalid_arguments");
    expect(world.call("get_balance", { account_id: world.person.ids.account_id }).error).toBe(
      "timeout",
    );
  });
});

describe("reward after spoiled answers", () => {
  for (const condition of ["malformed_result", "partial_result"] as const) {
    it(`${condition}: reward() grades instead of throwing, and a clean offline agent earns it`, async () => {
      const rows = await simulate(helpdeskSpec, {
        rows: 60,
        slipRate: 0,
        preferSuccess: false,
        seed: 5,
      });
      expect(rows.size).toBe(60);
      for (const tool of ["listTickets", "createTicket", "getTicket"]) {
        const situation = situationOf(helpdeskSpec, { tool, condition });
        const episode = new Episode({ spec: helpdeskSpec, situation });
        await episode.reset();
        const goal = episode.goal;
        const call = {
          role: "assistant" as const,
          content: null,
          tool_calls: [
            {
              id: "c1",
              type: "function" as const,
              function: { name: goal.tool, arguments: JSON.stringify(goal.arguments) },
            },
          ],
        };
        await episode.step(call);
        expect(() => episode.reward()).not.toThrow();
        if (tool === "createTicket")
          expect(episode.reward().checks[0]?.passed, `${tool} under ${condition}`).toBe(true);
      }
    });
  }
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

describe("judges", () => {
  it("reads the verdict out of an answer with other braces in it", async () => {
    const server = await OpenAICompatibleServer.start();
    try {
      server.script(
        completion({
          content:
            'Looking at {the transcript}: {"reward": 1, "reason": "fine {really}", "failure_class": null} done.',
        }),
      );
      const [row] = await offlineRows(financeSpec, 1);
      expect(await llmGrade(row as Row, { spec: `judge@${server.url}` })).toMatchObject({
        reward: 1,
        reason: "fine {really}",
      });
    } finally {
      await server.close();
    }
  });
});
