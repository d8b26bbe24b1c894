import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { Episode } from "../../env/episode.ts";
import { samplePersona } from "../../env/people/persona.ts";
import { composedByAgent } from "../../env/text/agent-written.ts";
import { SpecError } from "../../env/util/errors.ts";
import { snake } from "../../env/util/names.ts";
import { identityKey } from "../../env/world/identity.ts";
import { createWorld, type World } from "../../env/world/index.ts";
import { answersOne, type ToolModel, WorldModel } from "../../env/world/model.ts";
import type { AgentSpec, Coordinate } from "../../spec/index.ts";
import { situationOf } from "../fixtures/situations.ts";

const SPECS = join(import.meta.dirname, "../fixtures/specs");
const files = readdirSync(SPECS)
  .filter((f) => f.endsWith(".json"))
  .sort();
const corpus = files.map((file) => {
  const path = join(SPECS, file);
  const spec = JSON.parse(readFileSync(path, "utf8")) as AgentSpec;
  return { name: file.replace(/\.json$/, ""), path, spec, agent: Agent.from(spec, path) };
});

const SEEDS = [1, 2, 3, 4, 5];
/** Details a person states about themselves, by which a lookup finds them. */
const IDENTITY = new Set([
  "name",
  "first_name",
  "last_name",
  "email",
  "phone",
  "date_of_birth",
  "zip",
  "street",
  "address",
]);

const json = (content: string) => JSON.parse(content) as Record<string, unknown>;

/** A normal world with a working tool, on a situation of `tool`. */
function normalWorld(agent: Agent, tool: string, seed: number, axes: Partial<Coordinate> = {}) {
  const situation = situationOf(agent, { tool, world: "normal", condition: "ok", ...axes }, seed);
  return { situation, world: createWorld({ spec: agent, situation }) };
}

/** The goal call's arguments, with the free text the agent writes itself filled in. */
function goalArguments(tool: ToolModel, goal: Record<string, unknown>) {
  const args = { ...goal };
  for (const param of tool.tool.parameters.required ?? [])
    if (args[param] === undefined && composedByAgent(tool, param))
      args[param] = "The caller asked for this; details are in the conversation so far.";
  return args;
}

/** The person's goal on a situation of `tool`, in a normal world: the world, the tool model and the call's arguments. */
function goalCall(agent: Agent, tool: string, seed: number) {
  const { situation, world } = normalWorld(agent, tool, seed);
  const persona = samplePersona(agent, situation, world);
  const model = world.model.tools.get(persona.goal.tool) as ToolModel;
  return { world, model, args: goalArguments(model, persona.goal.arguments) };
}

/** Whether a read finds the person: it is about the person's own records, or takes only their identity details. */
function looksUpPerson(world: World, tool: ToolModel): boolean {
  if (tool.kind !== "read_one" && tool.kind !== "read_many") return false;
  if (tool.entity === world.model.person.name) return true;
  const params = Object.keys(tool.tool.parameters.properties ?? {});
  return params.length > 0 && params.every((p) => IDENTITY.has(identityKey(snake(p)) ?? ""));
}

/** The records a read answer shows: a list's records under the entity's collection, or the one record. */
function listed(world: World, tool: ToolModel, content: string): unknown[] {
  const body = json(content);
  if (answersOne(tool)) return [body];
  const key = tool.answer?.list ?? (world.model.entities.get(tool.entity)?.collection as string);
  const list = body[key];
  return Array.isArray(list) ? list : [];
}

/** Arguments of the declared type for each parameter of a tool (strings as arithmetic). */
function plainArguments(tool: ToolModel): Record<string, unknown> {
  const properties = (tool.tool.parameters.properties ?? {}) as Record<
    string,
    { type?: string; enum?: unknown[]; minimum?: number }
  >;
  return Object.fromEntries(
    Object.entries(properties).map(([param, schema]) => {
      if (Array.isArray(schema.enum) && schema.enum.length > 0) return [param, schema.enum[0]];
      switch (schema.type) {
        case "number":
        case "integer":
          return [param, Math.max(schema.minimum ?? 0, 30)];
        case "boolean":
          return [param, true];
        case "array":
          return [param, []];
        case "object":
          return [param, {}];
        default:
          return [param, "2 + 3"];
      }
    }),
  );
}

function assistantCall(name: string, args: Record<string, unknown>, id = "call_1") {
  return {
    role: "assistant" as const,
    content: null,
    tool_calls: [
      { id, type: "function" as const, function: { name, arguments: JSON.stringify(args) } },
    ],
  };
}

function counts(world: World): Record<string, number> {
  return Object.fromEntries(
    [...world.model.entities.values()].map((e) => [e.name, world.store.count(e.name)]),
  );
}

it("reads every spec of the corpus", () => {
  expect(corpus.length).toBe(9);
  expect(corpus.map((c) => c.name)).toContain("airline");
});

describe.each(corpus)("$name", ({ agent }) => {
  const axisTools = agent.axes.tool.map((t) => t.name);

  it("a lookup with the person's own details finds them", () => {
    const { world: probe } = normalWorld(agent, axisTools[0] as string, 1);
    const lookups = axisTools.filter((name) =>
      looksUpPerson(probe, probe.model.tools.get(name) as ToolModel),
    );
    expect(lookups.length, "tools that look the person up").toBeGreaterThan(0);
    for (const tool of lookups)
      for (const seed of SEEDS) {
        const { world, model, args } = goalCall(agent, tool, seed);
        const answer = world.call(tool, args);
        const where = `${tool}(${JSON.stringify(args)}) seed ${seed}: ${answer.content}`;
        expect(answer.ok, where).toBe(true);
        expect(listed(world, model, answer.content).length, where).toBeGreaterThan(0);
      }
  });

  it("every goal call of a normal world is accepted: the person's details are ones the world knows", () => {
    const refused: string[] = [];
    for (const tool of axisTools)
      for (const seed of SEEDS) {
        const { world, args } = goalCall(agent, tool, seed);
        const answer = world.call(tool, args);
        if (!answer.ok)
          refused.push(`${tool} seed ${seed}: ${JSON.stringify(args)} → ${answer.content}`);
      }
    expect(refused).toEqual([]);
  });

  it("a precondition is refused with the status named", () => {
    const { world: probe } = normalWorld(agent, axisTools[0] as string, 1);
    const guarded = axisTools.filter((name) => probe.model.tools.get(name)?.requires);
    for (const tool of guarded) {
      const { world: first, model } = goalCall(agent, tool, 1);
      const requires = model.requires as NonNullable<ToolModel["requires"]>;
      const entity = first.model.entities.get(model.entity);
      expect(entity, `${tool}: its entity`).toBeDefined();
      const vocabulary = [
        ...(entity?.statuses.usable ?? []),
        ...(entity?.statuses.terminal ?? []),
        ...requires.excluded,
      ];
      const failing = [...new Set(vocabulary)].filter(
        (s) =>
          requires.excluded.includes(s) ||
          (requires.statuses.length > 0 && !requires.statuses.includes(s)),
      );
      expect(failing.length, `${tool}: statuses its requirement excludes`).toBeGreaterThan(0);
      for (const status of failing) {
        // A fresh world each time: the goal call, with its record set to a status it cannot act in.
        const { world, args } = goalCall(agent, tool, 1);
        const id = args[model.idParam as string];
        expect(id, `${tool}: the goal names its record`).toBeDefined();
        const record = world.store.get(model.entity, String(id));
        expect(record, `${tool}: record ${String(id)}`).toBeDefined();
        if (!record) continue;
        record.status = status;
        world.store.changed(model.entity, record);
        const before = counts(world);
        const answer = world.call(tool, args);
        const where = `${tool} on a ${model.entity} that is ${status}: ${answer.content}`;
        expect(answer.ok, where).toBe(false);
        expect(answer.error, where).toBe("invalid_state");
        const body = json(answer.content);
        expect(body.message, where).toEqual(expect.stringContaining(status));
        expect(body.status, where).toBe(status);
        expect(world.store.get(model.entity, String(id))?.status, where).toBe(status);
        expect(counts(world), where).toEqual(before);
      }
    }
  });

  const handoffs = agent.tools.filter((t) => t.role === "handoff").map((t) => t.name);
  it.each(handoffs.length > 0 ? handoffs : ["(none)"])(
    "a hand-off tool ends the conversation: %s",
    async (tool) => {
      if (tool === "(none)") {
        expect(agent.tools.every((t) => t.role !== "handoff")).toBe(true);
        return;
      }
      expect(axisTools).toContain(tool);
      for (const seed of [1, 2]) {
        const situation = situationOf(agent, { tool, world: "normal", condition: "ok" }, seed);
        const episode = new Episode({ spec: agent, situation });
        await episode.reset();
        const model = episode.world.model.tools.get(tool) as ToolModel;
        expect(model.kind).toBe("handoff");
        const args = goalArguments(model, episode.goal.arguments);
        const result = await episode.step(assistantCall(tool, args));
        const answer = result.observation.messages[0];
        expect(answer?.role).toBe("tool");
        expect(json(answer?.content as string).error, answer?.content as string).toBeUndefined();
        expect(result.done).toBe(true);
        expect(result.observation.truncated).toBe(false);
        expect(result.observation.ended_by).toBe("handoff");
        expect(episode.row().episode.ended_by).toBe("handoff");
        expect(episode.world.handedOff).toBe(true);
        for (const later of [tool, axisTools[0] as string]) {
          const refused = episode.world.call(later, args);
          expect(refused.ok).toBe(false);
          expect(refused.error).toBe("conversation_handed_off");
        }
      }
    },
  );

  it("utility tools are not situations, create nothing, and calculate computes", () => {
    const utilities = agent.tools.filter((t) => t.role === "utility");
    for (const tool of utilities) expect(axisTools).not.toContain(tool.name);
    for (const tool of agent.tools.filter((t) => t.role !== "utility"))
      expect(axisTools).toContain(tool.name);
    for (const seed of [1, 2]) {
      const { world } = normalWorld(agent, axisTools[0] as string, seed);
      for (const tool of utilities) {
        const model = world.model.tools.get(tool.name) as ToolModel;
        expect(model.kind).toBe("utility");
        const before = counts(world);
        const collections = structuredClone(world.snapshot().collections);
        const answer = world.call(tool.name, plainArguments(model));
        expect(answer.ok, `${tool.name}: ${answer.content}`).toBe(true);
        expect(counts(world), tool.name).toEqual(before);
        expect(world.snapshot().collections, tool.name).toEqual(collections);
      }
    }
    const { world } = normalWorld(agent, axisTools[0] as string, 1);
    for (const tool of utilities.filter((t) => /calculat/i.test(t.name))) {
      const properties = (tool.parameters.properties ?? {}) as Record<string, { type?: string }>;
      const param = Object.keys(properties).find((p) => properties[p]?.type === "string");
      expect(param, `${tool.name}: a string parameter`).toBeDefined();
      const calc = (expression: string) => world.call(tool.name, { [param as string]: expression });
      const before = counts(world);
      for (const [expression, value] of [
        ["2 + 3 * 4", 14],
        ["(1.5 + 2.5) / 2", 2],
      ] as const) {
        const answer = calc(expression);
        expect(answer.ok, `${expression}: ${answer.content}`).toBe(true);
        expect(Number(json(answer.content).result), expression).toBe(value);
      }
      for (const hostile of [
        "process.exit(1)",
        "constructor.constructor('return 1')()",
        "require('fs')",
        "2 + globalThis",
      ]) {
        const answer = calc(hostile);
        expect(answer.ok, `${hostile}: ${answer.content}`).toBe(false);
        expect(answer.error, hostile).toEqual(expect.any(String));
        expect(json(answer.content).result, hostile).toBeUndefined();
      }
      expect(counts(world)).toEqual(before);
    }
  });
});

it("the corpus has preconditions, hand-offs and calculators to test", () => {
  let guarded = 0;
  let handoffs = 0;
  let calculators = 0;
  for (const { agent } of corpus) {
    const model = WorldModel.of(agent);
    guarded += agent.axes.tool.filter((t) => model.tools.get(t.name)?.requires).length;
    handoffs += agent.tools.filter((t) => t.role === "handoff").length;
    calculators += agent.tools.filter(
      (t) => t.role === "utility" && /calculat/i.test(t.name),
    ).length;
  }
  expect(guarded).toBeGreaterThan(0);
  expect(handoffs).toBeGreaterThan(0);
  expect(calculators).toBeGreaterThan(0);
});

describe("specs as people write them are accepted", () => {
  const tool = (name: string, properties: Record<string, unknown>, required: string[]) => ({
    type: "function" as const,
    function: {
      name,
      description: name.replace(/_/g, " "),
      parameters: { type: "object" as const, properties, required },
    },
  });
  const base = {
    name: "shop",
    system_prompt: "You help customers of the shop with their orders.",
    tools: [
      tool("get_order", { order_id: { type: "string" } }, ["order_id"]),
      tool("cancel_order", { order_id: { type: "string" }, reason: { type: "string" } }, [
        "order_id",
        "reason",
      ]),
    ],
    policy: [
      { id: "verify-identity", text: "Verify the customer's identity before any change." },
      {
        id: "refunds.v2",
        text: "Cancel only orders that have not shipped.",
        tools: ["cancel_order"],
      },
      { id: "Billing_2024.confirm-first", text: "Confirm before cancelling an order." },
    ],
  };

  it("kebab-case and dotted rule ids, and custom stances given as bare strings", () => {
    const agent = Agent.from({ ...base, axes: { stances: ["upset", "cooperative"] } });
    expect(agent.rules.map((r) => r.id)).toEqual([
      "verify-identity",
      "refunds.v2",
      "Billing_2024.confirm-first",
    ]);
    expect(agent.axes.rule.map((r) => r.name)).toEqual(
      expect.arrayContaining(["verify-identity", "refunds.v2", "Billing_2024.confirm-first"]),
    );
    expect(agent.axes.stance.map((s) => s.name)).toEqual(["upset", "cooperative"]);
    for (const stance of agent.axes.stance) expect(stance.description).toMatch(/\w{3,}/);
    // A bare stance of one's own plays like any other: the world and the person are built.
    const situation = situationOf(agent, { tool: "cancel_order", stance: "upset" });
    const world = createWorld({ spec: agent, situation });
    expect(samplePersona(agent, situation, world).stance.name).toBe("upset");
  });

  it("custom bare-string stances are accepted on every corpus spec", () => {
    for (const { spec, name } of corpus) {
      const agent = Agent.from({ ...spec, axes: { ...spec.axes, stances: ["upset", "terse"] } });
      expect(
        agent.axes.stance.map((s) => s.name),
        name,
      ).toEqual(["upset", "terse"]);
    }
  });

  it("a spec with several problems of different kinds reports every one in one SpecError", () => {
    const broken = {
      ...base,
      tools: [
        base.tools[0],
        { type: "function", function: { description: "no name", parameters: { type: "object" } } },
        base.tools[1],
      ],
      policy: [
        { id: "has space", text: "A rule whose id has a space." },
        { id: "scoped", text: "A rule about a tool that is not there.", tools: ["no_such_tool"] },
        ...base.policy,
      ],
    };
    let error: unknown;
    try {
      Agent.from(broken);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SpecError);
    const issues = (error as SpecError).issues;
    const paths = issues.map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining(["policy[0].id", "policy[1].tools[0]", "tools[1].function.name"]),
    );
    expect(issues.find((i) => i.path === "policy[0].id")?.message).toMatch(/letters, digits/);
    expect(issues.find((i) => i.path === "policy[1].tools[0]")?.message).toMatch(/no_such_tool/);
    expect((error as SpecError).message).toMatch(/3 problems/);
  });
});
