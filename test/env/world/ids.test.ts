import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { Episode } from "../../../env/episode.ts";
import { simulate } from "../../../env/simulate.ts";
import { IdentifierReader } from "../../../env/text/identifiers.ts";
import { SpecError } from "../../../env/util/errors.ts";
import { createWorld } from "../../../env/world/index.ts";
import type { AgentSpec } from "../../../spec/index.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { growth } from "../../support/growth.ts";
import { offlineRows, specOf } from "../../support/specs.ts";

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

describe("identifiers the world once could not make (issue 12)", () => {
  /** The retail tools that take an order id, with `order_id` given this schema in each. */
  const orders = (schema: Record<string, unknown>): AgentSpec =>
    specOf([
      ["get_order", { order_id: schema }, ["order_id"]],
      ["cancel_order", { order_id: schema, reason: { type: "string" } }, ["order_id", "reason"]],
      ["list_orders", { email: { type: "string" } }, ["email"]],
    ]);

  it("makes the ids a schema allows: a const, an enum of numbers, an email, a date, a bounded length or number", async () => {
    // Reproduction: each of these was accepted, and every call naming an order answered invalid_arguments.
    const shapes: [Record<string, unknown>, RegExp][] = [
      [{ type: "string", const: "W1234567" }, /^W1234567$/],
      [{ type: "integer", enum: [101, 202, 303] }, /^(101|202|303)$/],
      [{ type: "string", format: "email" }, /^ord\.\d{6}@records\.mail\.net$/],
      [{ type: "string", format: "date" }, /^\d{4}-\d{2}-\d{2}$/],
      [{ type: "string", maxLength: 3 }, /^\d{3}$/],
      [{ type: "string", minLength: 16 }, /^ORD-\d{12}$/],
      [{ type: "integer", minimum: 1, maximum: 100 }, /^\d{1,3}$/],
    ];
    for (const [schema, shape] of shapes) {
      const spec = orders(schema);
      await goalCallsWork(spec);
      const world = createWorld({ spec, situation: situationOf(spec, { tool: "get_order" }) });
      expect(world.person.ids.order_id, JSON.stringify(schema)).toMatch(shape);
    }
  });

  it("refuses by name an identifier whose type can hold no id: a flag, an object", () => {
    for (const type of ["boolean", "object"]) {
      const spec = orders({ type });
      expect(() => createWorld({ spec, situation: situationOf(spec, {}) })).toThrow(
        new RegExp(
          `tools\\[0\\]\\.function\\.parameters\\.properties\\.order_id: reads as naming order records, but its type "${type}" can hold no identifier`,
        ),
      );
    }
  });

  it("refuses by name, before any row, parameters whose ids no shape the world makes can pass", async () => {
    const spec = specOf([
      ["get_order", { order_id: { type: "string", enum: ["A1", "A2", "A3"] } }, ["order_id"]],
      [
        "cancel_order",
        { order_id: { type: "string", format: "ipv6" }, reason: { type: "string" } },
        ["order_id", "reason"],
      ],
    ]);
    const refused = simulate(spec, { rows: 2 });
    await expect(refused).rejects.toThrow(SpecError);
    await expect(refused).rejects.toThrow(
      /tools\[0\]\.function\.parameters\.properties\.order_id: names order records, but no id the world can make passes its schema \("[^"]+": must be one of "A1", "A2", "A3"\)/,
    );
    await expect(refused).rejects.toThrow(
      /tools\[1\]\.function\.parameters\.properties\.order_id: names order records, .*must be in ipv6 format/,
    );
  });
});

describe("finding ids a spec's pattern shapes", () => {
  it("runs the pattern in time linear in the text a model or person wrote", () => {
    const spec = specOf([
      [
        "get_order",
        { order_id: { type: "string", pattern: String.raw`^([a-zA-Z0-9]+\s?)*$` } },
        ["order_id"],
      ],
    ]);
    const reader = new IdentifierReader(Agent.from(spec));
    // Each text ends in "!", which the pattern cannot match: the backtracking engine doubled with
    // each letter before it gave up. Four times the text costs about four times as much (the least of several measures, taken
    // by turns, so other work on the machine does not read as growth; it failed a 10x ratio so).
    // Every text is new, as the reader keeps what it found in a text it read before.
    let read = 0;
    expect(
      growth(
        (length) => `${"a".repeat(length)}!`,
        (text) => {
          for (let i = 0; i < 20; i++) reader.locate(`${text}${read++}`);
        },
        700,
      ),
    ).toBeLessThan(8);
  });
});
