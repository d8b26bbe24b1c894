import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { QualityTally } from "../../../env/quality.ts";
import { simulate } from "../../../env/simulate.ts";
import { answerCheck, closedSchema } from "../../../env/world/answer-shape.ts";
import { createWorld, type World } from "../../../env/world/index.ts";
import type { AgentSpec, Row } from "../../../spec/index.ts";
import { situationOf } from "../../fixtures/situations.ts";

type Schema = Record<string, unknown>;

/** An MCP tool, the one format that carries an output schema. */
function mcp(
  name: string,
  description: string,
  input: Record<string, Schema>,
  output: Schema,
  required: string[] = Object.keys(input),
): AgentSpec["tools"][number] {
  return {
    name,
    description,
    inputSchema: { type: "object", properties: input, required },
    outputSchema: output,
  } as never;
}

const PATIENT = {
  type: "object",
  properties: {
    patient_id: { type: "string" },
    first_name: { type: "string" },
    last_name: { type: "string" },
    date_of_birth: { type: "string", format: "date" },
  },
  required: ["patient_id", "first_name", "last_name"],
};

const SPEC: AgentSpec = {
  name: "clinic",
  system_prompt: "You book appointments for a clinic's patients.",
  policy: [],
  tools: [
    mcp(
      "find_patient",
      "Find patients by last name and date of birth. Returns an empty list if none match.",
      { last_name: { type: "string" }, date_of_birth: { type: "string", format: "date" } },
      {
        type: "object",
        properties: { matches: { type: "array", items: PATIENT } },
        required: ["matches"],
      },
    ),
    mcp(
      "find_patient_by_email",
      "Find a patient profile by email address, or an error if none matches.",
      { email: { type: "string", format: "email" } },
      {
        type: "object",
        properties: { patient_id: { type: "string" }, first_name: { type: "string" } },
        required: ["patient_id", "first_name"],
      },
    ),
    mcp(
      "list_appointments",
      "List a patient's appointments.",
      { patient_id: { type: "string" } },
      {
        type: "object",
        properties: {
          appointments: {
            type: "array",
            items: {
              type: "object",
              properties: {
                appointment_id: { type: "string" },
                start: { type: "string", format: "date-time" },
              },
              required: ["appointment_id"],
            },
          },
          count: { type: "integer" },
          has_more: { type: "boolean" },
        },
        required: ["appointments", "count", "has_more"],
      },
    ),
    mcp(
      "register_patient",
      "Create a new patient record. Returns the new patient_id.",
      { first_name: { type: "string" }, last_name: { type: "string" }, email: { type: "string" } },
      {
        type: "object",
        properties: { patient_id: { type: "string" }, created: { type: "boolean" } },
        required: ["patient_id", "created"],
      },
    ),
    mcp(
      "submit_reading",
      "Submit a reading for an appointment.",
      { appointment_id: { type: "string" }, reading: { type: "number" } },
      {
        type: "object",
        properties: {
          status: { type: "string", enum: ["accepted", "accepted_flagged", "rejected"] },
          rejection_reason: { type: "string" },
        },
        required: ["status"],
      },
    ),
  ],
};

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

const worldOf = (tool: string, seed: number): World =>
  createWorld({ spec: SPEC, situation: situationOf(SPEC, { tool }, seed) });

const body = (content: string) => JSON.parse(content) as Record<string, unknown>;

describe("the world answers as each tool's output schema says", () => {
  it("a listing whose schema wraps its records answers under that key, each record showing the item's fields", () => {
    for (const seed of SEEDS) {
      const world = worldOf("find_patient", seed);
      const { last_name, date_of_birth } = world.person.details;
      const answer = world.call("find_patient", { last_name, date_of_birth });
      expect(answer.ok).toBe(true);
      const found = body(answer.content);
      expect(Object.keys(found)).toEqual(["matches"]);
      const matches = found.matches as Record<string, unknown>[];
      expect(matches.length).toBeGreaterThan(0);
      for (const match of matches) {
        expect(Object.keys(match).every((k) => k in PATIENT.properties)).toBe(true);
        expect(match.last_name).toBe(last_name);
      }
      expect(answerCheck(Agent.from(SPEC).tools[0] as never)?.(found)).toEqual([]);
      const none = world.call("find_patient", { last_name: "Nobody", date_of_birth: "1900-01-01" });
      expect(body(none.content)).toEqual({ matches: [] });
    }
  });

  it("a listing whose schema describes one record answers with that record, and not_found when none matches", () => {
    for (const seed of SEEDS) {
      const world = worldOf("find_patient_by_email", seed);
      const answer = body(
        world.call("find_patient_by_email", { email: world.person.email }).content,
      );
      expect(Object.keys(answer).sort()).toEqual(["first_name", "patient_id"]);
      expect(answer.first_name).toBe(world.person.details.first_name);
      const missing = world.call("find_patient_by_email", { email: "nobody@example.invalid" });
      expect(missing.ok).toBe(false);
      expect(missing.error).toBe("not_found");
    }
  });

  it("a list's count and has_more are what the list holds", () => {
    for (const seed of SEEDS) {
      const world = worldOf("list_appointments", seed);
      const patient = world.person.ids.patient_id as string;
      const answer = body(world.call("list_appointments", { patient_id: patient }).content);
      expect(Object.keys(answer).sort()).toEqual(["appointments", "count", "has_more"]);
      expect(answer.count).toBe((answer.appointments as unknown[]).length);
      expect(answer.has_more).toBe(false);
    }
  });

  it("a write shows what its schema requires: `created` true, a success status, no rejection reason", () => {
    let readings = 0;
    for (const seed of SEEDS) {
      const world = worldOf("register_patient", seed);
      const made = body(
        world.call("register_patient", {
          first_name: "Ada",
          last_name: "Lovelace",
          email: "ada.lovelace@analytical.org",
        }).content,
      );
      expect(Object.keys(made).sort()).toEqual(["created", "patient_id"]);
      expect(made.created).toBe(true);
      // How the write went is no field of a patient's record.
      for (const patient of world.snapshot().collections.patients ?? [])
        expect(patient).not.toHaveProperty("created");
      const appointment = world.snapshot().collections.appointments?.[0]?.appointment_id;
      const reading = world.call("submit_reading", { appointment_id: appointment, reading: 12 });
      if (!reading.ok) continue;
      readings++;
      expect(body(reading.content)).toEqual({ status: "accepted" });
    }
    expect(readings).toBeGreaterThan(0);
  });

  it("closes objects that name their properties, and leaves open those that say more or combine schemas", () => {
    const closed = closedSchema({
      type: "object",
      properties: {
        open: { type: "object", properties: { a: {} }, additionalProperties: true },
        combined: { type: "object", properties: { b: {} }, anyOf: [{ required: ["b"] }] },
        list: { type: "array", items: { type: "object", properties: { c: {} } } },
      },
    }) as never as {
      additionalProperties: unknown;
      properties: Record<
        string,
        { additionalProperties?: unknown; items?: { additionalProperties?: unknown } }
      >;
    };
    expect(closed.additionalProperties).toBe(false);
    expect(closed.properties.open?.additionalProperties).toBe(true);
    expect(closed.properties.combined?.additionalProperties).toBeUndefined();
    expect(closed.properties.list?.items?.additionalProperties).toBe(false);
  });
});

describe("the quality figure answers_off_schema", () => {
  it("is zero on a run, and counts an answer with a field its schema does not name", async () => {
    const data = await simulate(SPEC, { rows: 40, seed: 3 });
    const rows = await data.rows();
    const figure = data.quality?.answers_off_schema;
    expect(figure?.of).toBeGreaterThan(0);
    expect(figure?.count).toBe(0);
    // The same rows with one answer given a field no schema names.
    const tally = new QualityTally(Agent.from(SPEC));
    let spoiled = 0;
    for (const row of rows) tally.add(spoiled++ === 0 ? withExtraField(row) : row);
    expect(tally.result().answers_off_schema.count).toBe(1);
    expect(tally.warnings().some((w) => w.startsWith("quality: answers off schema"))).toBe(true);
  });
});

/** A row whose first schema'd, successful tool answer after the opening gains a field. */
function withExtraField(row: Row): Row {
  const messages = row.messages.map((m) => ({ ...m }));
  const start = 1 + row.episode.history_turns;
  const at = messages.findIndex(
    (m, i) => i >= start && m.role === "tool" && !("error" in body(m.content)),
  );
  expect(at).toBeGreaterThan(0);
  const message = messages[at] as { content: string };
  message.content = JSON.stringify({ ...body(message.content), internal_flag: true });
  return { ...row, messages } as Row;
}

describe("records of an entity its schemas describe", () => {
  const ENERGY: AgentSpec = {
    name: "energy",
    system_prompt: "You help an energy supplier's customers.",
    policy: [],
    tools: [
      mcp(
        "get_account",
        "Get an account.",
        { account_number: { type: "string" } },
        {
          type: "object",
          properties: {
            account_number: { type: "string" },
            balance_gbp: { type: "number" },
            tariff: {
              type: "object",
              properties: { code: { type: "string" }, name: { type: "string" } },
            },
          },
        },
      ),
    ],
  };

  it("hold no field guessed from the entity's name, and a nested object's fields are its own", () => {
    for (const seed of SEEDS) {
      const world = createWorld({
        spec: ENERGY,
        situation: situationOf(ENERGY, { tool: "get_account" }, seed),
      });
      const accounts = world.snapshot().collections.accounts ?? [];
      expect(accounts.length).toBeGreaterThan(0);
      // A bank account's `type` (checking or savings) is nothing an energy account was said to hold.
      for (const account of accounts) expect(account).not.toHaveProperty("type");
      expect(world.person.about).not.toMatch(/checking|savings/);
      const number = world.person.ids.account_number as string;
      const answer = body(world.call("get_account", { account_number: number }).content);
      expect(Object.keys(answer).sort()).toEqual(["account_number", "balance_gbp", "tariff"]);
      expect((answer.tariff as { name: string }).name).toMatch(/ tariff$/);
    }
  });
});

describe("output schemas written in other common shapes", () => {
  const PERSON = {
    type: "object",
    properties: { patient_id: { type: "string" }, last_name: { type: "string" } },
    required: ["patient_id", "last_name"],
  };
  const SHAPES: AgentSpec = {
    name: "shapes",
    system_prompt: "You help a clinic's patients.",
    policy: [],
    tools: [
      mcp(
        "find_patient",
        "Find patients by last name.",
        { last_name: { type: "string" } },
        {
          type: "object",
          $defs: { patient: PERSON },
          properties: { matches: { type: ["array", "null"], items: { $ref: "#/$defs/patient" } } },
        },
      ),
      mcp(
        "search_patients",
        "Search patients by a query.",
        { query: { type: "string" } },
        {
          type: "object",
          properties: {
            query: { type: "string" },
            results: {
              type: "array",
              items: { allOf: [PERSON, { properties: { phone: { type: "string" } } }] },
            },
          },
          required: ["query", "results"],
        },
      ),
      mcp(
        "update_patient",
        "Update a patient's phone.",
        { patient_id: { type: "string" }, phone: { type: "string" } },
        {
          type: "object",
          properties: {
            result: { type: "string", enum: ["rejected", "updated"] },
            success: { type: "boolean" },
            error: { type: ["string", "null"] },
            nickname: { type: "integer" },
          },
          required: ["result", "success", "error"],
        },
      ),
    ],
  };

  it("lists records whose items are a $ref, or an allOf, beside the call's own query", () => {
    for (const seed of SEEDS) {
      const world = createWorld({
        spec: SHAPES,
        situation: situationOf(SHAPES, { tool: "find_patient" }, seed),
      });
      const last = world.person.details.last_name as string;
      const found = body(world.call("find_patient", { last_name: last }).content);
      const matches = found.matches as Record<string, unknown>[];
      expect(matches.length).toBeGreaterThan(0);
      for (const m of matches) {
        expect(Object.keys(m).sort()).toEqual(["last_name", "patient_id"]);
        expect(m.last_name).toBe(last);
      }
      const searched = body(world.call("search_patients", { query: last }).content);
      expect(searched.query).toBe(last);
      for (const r of searched.results as Record<string, unknown>[])
        expect(Object.keys(r).every((k) => ["patient_id", "last_name", "phone"].includes(k))).toBe(
          true,
        );
      for (const tool of Agent.from(SHAPES).tools.slice(0, 2))
        expect(answerCheck(tool)?.(tool.name === "find_patient" ? found : searched)).toEqual([]);
    }
  });

  it("a write that went through shows success, whatever its record holds", () => {
    for (const seed of SEEDS) {
      const world = createWorld({
        spec: SHAPES,
        situation: situationOf(SHAPES, { tool: "update_patient" }, seed),
      });
      const id = world.person.ids.patient_id as string;
      const answer = world.call("update_patient", { patient_id: id, phone: "+1 (555) 555-0100" });
      expect(answer.ok, answer.content).toBe(true);
      for (const patient of world.snapshot().collections.patients ?? [])
        for (const field of ["result", "success", "error"])
          expect(patient).not.toHaveProperty(field);
      const { nickname, ...outcome } = body(answer.content);
      expect(outcome).toEqual({ result: "updated", success: true, error: null });
      // An optional field shows the record's own value when it fits, else nothing.
      if (nickname !== undefined) expect(Number.isInteger(nickname)).toBe(true);
    }
  });
});

describe("a kind the tools name", () => {
  it("replaces the kind guessed from the entity's name", () => {
    const TELECOM: AgentSpec = {
      name: "telecom",
      system_prompt: "You help a mobile network's customers.",
      policy: [],
      tools: [
        {
          type: "function",
          function: {
            name: "get_account",
            description: "Get an account: account holder name, account type and status.",
            parameters: {
              type: "object",
              properties: { account_id: { type: "string" } },
              required: ["account_id"],
            },
          },
        },
      ],
    } as never;
    for (const seed of SEEDS) {
      const world = createWorld({
        spec: TELECOM,
        situation: situationOf(TELECOM, { tool: "get_account" }, seed),
      });
      const accounts = world.snapshot().collections.accounts ?? [];
      expect(accounts.length).toBeGreaterThan(0);
      for (const account of accounts) {
        expect(account).toHaveProperty("account_type");
        expect(account).not.toHaveProperty("type");
      }
    }
  });
});
