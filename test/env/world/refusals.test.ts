import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { createWorld } from "../../../env/world/index.ts";
import { revivesFrom } from "../../../env/world/statuses.ts";
import { CONDITIONS, type WORLDS } from "../../../spec/index.ts";
import { financeSpec, helpdeskSpec, referenceSpec } from "../../fixtures/reference-spec.ts";
import { situationOf, withDefaultAxes } from "../../fixtures/situations.ts";

const retail = Agent.from(withDefaultAxes(referenceSpec));
const finance = Agent.from(financeSpec);
const helpdesk = Agent.from(helpdeskSpec);
const json = (content: string) => JSON.parse(content) as Record<string, unknown>;

describe("the world says no", () => {
  const world = () =>
    createWorld({ spec: retail, situation: situationOf(retail, { tool: "get_order" }) });

  it("refuses a change given no id of the record it acts on, rather than look up nothing", () => {
    const agent = Agent.from({
      name: "forms",
      system_prompt: "You help patients.",
      policy: [],
      tools: [
        {
          type: "function" as const,
          function: {
            name: "intake_form_send",
            description: "Send an intake form for an appointment.",
            parameters: {
              type: "object" as const,
              properties: {
                patient_id: { type: "string" },
                appointment_id: { type: "string" },
                form: { type: "string", enum: ["health_history", "consent"] },
              },
              required: ["patient_id", "form"],
            },
          },
        },
      ],
    } as never);
    const sent = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "intake_form_send" }),
    });
    const patient = sent.person.ids.patient_id as string;
    const answer = json(
      sent.call("intake_form_send", { patient_id: patient, form: "consent" }).content,
    );
    expect(answer.error).toBe("invalid_arguments");
    expect(JSON.stringify(answer)).not.toContain("undefined");
    expect(answer.problems).toEqual([
      '"appointment_id" names the appointment it acts on; none was given',
    ]);
  });

  it("gives no record an id a tool's description uses as its example, which an agent echoing is refused for", () => {
    const agent = Agent.from({
      name: "therapists",
      system_prompt: "You help patients.",
      policy: [],
      tools: [
        {
          type: "function" as const,
          function: {
            name: "get_therapist",
            description: "Get a therapist.",
            parameters: {
              type: "object" as const,
              properties: {
                therapist_id: {
                  type: "string",
                  pattern: "^T\\d{2}$",
                  description: "Therapist id, e.g. 'T07'.",
                },
              },
              required: ["therapist_id"],
            },
          },
        },
      ],
    } as never);
    for (let seed = 0; seed < 40; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "get_therapist" }),
        seed,
      });
      const ids = (world.snapshot().collections.therapists ?? []).map(
        (t: Record<string, unknown>) => t.therapist_id,
      );
      expect(ids.length).toBeGreaterThan(0);
      expect(ids).not.toContain("T07");
    }
  });

  it("answers an unknown identifier with not_found, naming what was looked up", () => {
    const answer = world().call("get_order", { order_id: "W0000000" });
    expect(answer).toMatchObject({ ok: false, error: "not_found" });
    expect(json(answer.content)).toEqual({
      error: "not_found",
      message: 'No order found with order_id "W0000000"',
      looked_up: { order_id: "W0000000" },
    });
    expect(
      json(world().call("list_orders", { email: "nobody.here@proton.me" }).content).message,
    ).toBe('No customer found with email "nobody.here@proton.me"');
  });

  it("refuses arguments that fail the tool's JSON schema, listing every problem", () => {
    const answer = world().call("cancel_order", { order_id: 42, reason: "bored", extra: true });
    expect(answer.error).toBe("invalid_arguments");
    expect(json(answer.content).problems).toEqual([
      '"order_id" must be a string',
      '"reason" must be one of "no_longer_needed", "ordered_by_mistake", "other"',
    ]);
    expect(json(world().call("refund_order", {}).content).problems).toEqual([
      'missing required argument "order_id"',
      'missing required argument "amount"',
    ]);
    const desk = createWorld({ spec: helpdesk, situation: situationOf(helpdesk, {}) });
    expect(
      json(
        desk.call("createTicket", {
          userEmail: "not-an-email",
          subject: "hi",
          priority: "high",
          colour: "red",
        }).content,
      ).problems,
    ).toEqual([
      'unknown argument "colour"',
      '"userEmail" must be an email address',
      '"subject" must NOT have fewer than 5 characters',
    ]);
    expect(json(desk.call("getTicket", { ticketId: "TICKET-1" }).content).problems).toEqual([
      '"ticketId" must match pattern "^INC[0-9]{6}$"',
    ]);
  });

  it("refuses arguments that are not a JSON object", () => {
    expect(json(world().call("get_order", "{not json").content)).toMatchObject({
      error: "invalid_arguments",
      message: "The arguments are not valid JSON",
    });
    expect(json(world().call("get_order", "[1,2]").content).problems).toEqual(["got an array"]);
    expect(world().call("get_order", '{"order_id":"W0000000"}').error).toBe("not_found");
  });

  it("answers an unknown tool by naming the tools there are", () => {
    expect(json(world().call("delete_everything", {}).content).message).toMatch(
      /^No tool named "delete_everything"; available tools: get_order, list_orders/,
    );
  });

  const placeholders: [string, string, Record<string, unknown>, RegExp][] = [
    [
      "first name",
      "list_orders",
      { email: "first name" },
      /describes the value|placeholder|repeats/,
    ],
    ["user@example.com", "list_orders", { email: "user@example.com" }, /placeholder email address/],
    ["string", "get_order", { order_id: "string" }, /generic placeholder/],
    ["<order_id>", "get_order", { order_id: "<order_id>" }, /template slot/],
    ["John Doe", "transfer_to_human", { summary: "John Doe" }, /stock placeholder name/],
    ["123-456-7890", "transfer_to_human", { summary: "123-456-7890" }, /placeholder phone number/],
    [
      "the parameter's own name",
      "get_order",
      { order_id: "order_id" },
      /repeats the parameter's name/,
    ],
    [
      "the parameter's description",
      "update_address",
      { order_id: "", address: "Full street address with city and postcode" },
      /repeats the parameter's description/,
    ],
    [
      "the description's example",
      "get_order",
      { order_id: "W2378156" },
      /example from the tool's description/,
    ],
  ];
  for (const [kind, tool, args, reason] of placeholders) {
    it(`refuses a placeholder argument (${kind}) with a hint to use what the person said`, () => {
      const w = world();
      const full = { ...args };
      if (tool === "update_address") full.order_id = w.person.ids.order_id;
      const answer = w.call(tool, full);
      expect(answer.error).toBe("placeholder_argument");
      const body = json(answer.content);
      expect(body.message).toMatch(reason);
      expect(body.hint).toMatch(
        /the person gave or a tool returned; if you do not have it, ask the person/,
      );
    });
  }

  it("does not mistake the person's real details for placeholders", () => {
    const w = world();
    expect(w.call("list_orders", { email: w.person.email }).ok).toBe(true);
    expect(
      w.call("transfer_to_human", {
        summary: `${w.person.name} wants to change ${w.person.ids.order_id}`,
      }).ok,
    ).toBe(true);
  });
});

describe("faults from the condition axis", () => {
  const kinds = Object.keys(CONDITIONS).filter((k) => k !== "ok") as (keyof typeof CONDITIONS)[];
  const answers = new Map<string, string>();
  for (const kind of kinds) {
    it(`${kind}: fires on the situation's tool at its scheduled call and is recorded`, () => {
      const world = createWorld({
        spec: finance,
        situation: situationOf(finance, { tool: "get_balance", condition: kind }),
      });
      const args = { account_id: world.person.ids.account_id };
      const other = world.call("list_transactions", args);
      expect(other.ok).toBe(true);
      expect(() => JSON.parse(other.content)).not.toThrow();
      const first = world.call("get_balance", args);
      const second = world.call("get_balance", args);
      answers.set(kind, first.content);
      switch (kind) {
        case "timeout":
        case "server_error":
        case "rate_limited":
          expect(first).toMatchObject({ ok: false, error: kind });
          expect(json(first.content).retryable).toBe(true);
          if (kind === "rate_limited")
            expect(json(first.content).retry_after_seconds).toBeGreaterThan(0);
          expect(second.ok).toBe(true);
          break;
        case "permission_denied":
          expect(first).toMatchObject({ ok: false, error: "permission_denied" });
          expect(second.error).toBe("permission_denied");
          break;
        case "partial_result":
          expect(first.ok).toBe(true);
          expect(json(first.content).warnings).toEqual([
            expect.stringMatching(/^partial result: .* could not be loaded$/),
          ]);
          expect(
            Object.keys(json(first.content)).filter((k) => k !== "warnings").length,
          ).toBeLessThan(Object.keys(json(second.content)).length);
          break;
        case "malformed_result":
          expect(first.ok).toBe(true);
          expect(() => JSON.parse(first.content)).toThrow();
          expect(second.content.startsWith(first.content)).toBe(true);
          break;
      }
      expect(world.faults).toEqual([
        {
          tool: "get_balance",
          kind,
          at_call: 1,
          persistent: kind === "permission_denied",
          fired: kind === "permission_denied" ? [1, 2] : [1],
        },
      ]);
    });
  }

  it("gives each kind an answer the agent can tell apart", () => {
    expect(new Set(answers.values()).size).toBe(kinds.length);
  });

  it("schedules nothing when the condition is ok", () => {
    expect(
      createWorld({ spec: finance, situation: situationOf(finance, { condition: "ok" }) }).faults,
    ).toEqual([]);
  });
});

describe("the world axis", () => {
  const at = (agent: Agent, tool: string, world: keyof typeof WORLDS) =>
    createWorld({ spec: agent, situation: situationOf(agent, { tool, world }) });

  it("record_missing: the id the person holds names no record", () => {
    const w = at(retail, "get_order", "record_missing");
    expect(w.describe().subject).toMatchObject({ exists: false, status: null });
    expect(w.call("get_order", { order_id: w.person.ids.order_id }).error).toBe("not_found");
    const byEmail = at(retail, "list_orders", "record_missing");
    expect(byEmail.call("list_orders", { email: byEmail.person.ids.email }).error).toBe(
      "not_found",
    );
  });

  it("terminal_state: the subject is final, reads show it and changes are refused", () => {
    const w = at(retail, "cancel_order", "terminal_state");
    const order_id = w.person.ids.order_id as string;
    const status = json(w.call("get_order", { order_id }).content).status;
    expect(["cancelled", "refunded"]).toContain(status);
    expect(w.call("cancel_order", { order_id, reason: "other" }).error).toBe("invalid_state");
    const f = at(finance, "transfer_funds", "terminal_state");
    const { from_account_id, to_account_id } = f.person.ids as Record<string, string>;
    expect(
      json(f.call("transfer_funds", { from_account_id, to_account_id, amount: 1 }).content),
    ).toMatchObject({ error: "invalid_state" });
  });

  it("terminal_state: a tool that brings records back does so only from the states it names", async () => {
    const telecom = await Agent.load("test/fixtures/specs/telecom.json");
    // "Restore service on a line suspended as lost, stolen or temporary": not a closed line.
    const w = at(telecom, "restore_line", "terminal_state");
    const line_id = w.person.ids.line_id as string;
    const before = json(w.call("get_line_usage", { line_id }).content).status as string;
    expect(["closed", "cancelled"]).toContain(before);
    expect(json(w.call("restore_line", { line_id }).content)).toMatchObject({
      error: "invalid_state",
      status: before,
    });
    const lost = at(telecom, "restore_line", "normal");
    const suspended = lost.person.ids.line_id as string;
    lost.call("suspend_line", { line_id: suspended, reason: "lost" });
    expect(json(lost.call("restore_line", { line_id: suspended }).content).status).toBe("active");
    expect(
      revivesFrom("Reopen a closed ticket.", { usable: ["open"], terminal: ["closed"] }, "closed"),
    ).toBe(true);
    expect(
      revivesFrom(
        "Activate the card.",
        { usable: ["active"], terminal: ["cancelled"] },
        "cancelled",
      ),
    ).toBe(true);
  });

  it("duplicate_records: two records fit, and the person cannot say which by id", () => {
    const w = at(retail, "get_order", "duplicate_records");
    expect(w.person.ids.order_id).toBeUndefined();
    const shaped = w.describe().shaped as { duplicates: string[] };
    const orders = json(w.call("list_orders", { email: w.person.email }).content).orders as Record<
      string,
      unknown
    >[];
    const [a, b] = shaped.duplicates.map((id) => orders.find((o) => o.order_id === id));
    expect(a && b).toBeTruthy();
    const { order_id: _a, ...restA } = a as Record<string, unknown>;
    const { order_id: _b, ...restB } = b as Record<string, unknown>;
    expect(JSON.stringify(restA).replace(/"item_id":"[^"]+"/g, "")).toBe(
      JSON.stringify(restB).replace(/"item_id":"[^"]+"/g, ""),
    );
    const f = at(finance, "get_balance", "duplicate_records");
    expect(f.person.candidates.account_id).toHaveLength(2);
  });

  it("conflicting_records: the person believes a value the world does not hold", () => {
    const w = at(finance, "get_balance", "conflicting_records");
    const conflict = (
      w.describe().shaped as {
        conflict: { field: string; world_value: unknown; person_claims: unknown };
      }
    ).conflict;
    expect(conflict.world_value).not.toEqual(conflict.person_claims);
    expect(w.person.claims[conflict.field]).toEqual(conflict.person_claims);
    expect(
      json(w.call("get_balance", { account_id: w.person.ids.account_id }).content)[conflict.field],
    ).toEqual(conflict.world_value);
  });

  it("empty_account: the person's account holds nothing", () => {
    const w = at(retail, "list_orders", "empty_account");
    expect(json(w.call("list_orders", { email: w.person.email }).content)).toEqual({
      orders: [],
      count: 0,
      total: 0,
    });
    const f = at(finance, "get_balance", "empty_account");
    expect(
      json(f.call("get_balance", { account_id: f.person.ids.account_id }).content),
    ).toMatchObject({ current: 0, available: 0 });
    expect(
      json(f.call("list_transactions", { account_id: f.person.ids.account_id }).content)
        .transactions,
    ).toEqual([]);
  });

  it("normal: the subject exists in a usable state", () => {
    for (const [agent, tool] of [
      [retail, "cancel_order"],
      [finance, "freeze_card"],
      [helpdesk, "closeTicket"],
    ] as const) {
      const w = at(agent, tool, "normal");
      expect(w.describe().subject.exists).toBe(true);
      const args = Object.fromEntries(
        Object.keys(agent.tools.find((t) => t.name === tool)?.parameters.properties ?? {}).map(
          (p) => [p, w.person.ids[p] ?? "other"],
        ),
      );
      expect(w.call(tool, args).ok).toBe(true);
    }
  });

  it("duplicate and conflicting records: the record asked about (and a duplicate's twin) is in a state the tool acts in", async () => {
    const store = await Agent.load("test/fixtures/specs/online-store.json");
    const telecom = await Agent.load("test/fixtures/specs/telecom.json");
    let checked = 0;
    for (const [agent, tool] of [
      [store, "modify_pending_order_items"],
      [store, "cancel_pending_order"],
      [telecom, "change_plan"],
    ] as const)
      for (const world of ["duplicate_records", "conflicting_records"] as const)
        for (let seed = 0; seed < 12; seed++) {
          const w = createWorld({
            spec: agent,
            situation: situationOf(agent, { tool, world }, seed),
          });
          const requires = w.model.tools.get(tool)?.requires?.statuses ?? [];
          expect(requires.length, tool).toBeGreaterThan(0);
          const { entity, id } = w.describe().subject;
          // A conflict's other record holds what the person believes instead, its status perhaps.
          const { duplicates = [] } = w.state.shaped as { duplicates?: string[] };
          for (const record of [id, ...duplicates]) {
            if (record === null) continue;
            const status = w.store.get(entity, String(record))?.status;
            expect(requires, `${tool} ${world} seed ${seed}: ${record} is ${status}`).toContain(
              status,
            );
            checked++;
          }
        }
    expect(checked).toBeGreaterThan(100);
  });
});

describe("fuzz", () => {
  it("never crashes: any arguments to any tool get a tool answer", () => {
    const worlds = [retail, finance, helpdesk].map((agent) => ({
      agent,
      world: createWorld({
        spec: agent,
        situation: situationOf(agent, { condition: "partial_result" }),
      }),
    }));
    const argument = fc.oneof(
      fc.anything(),
      fc.json(),
      fc.string(),
      fc.dictionary(
        fc.constantFrom(
          "order_id",
          "email",
          "amount",
          "account_id",
          "from_account_id",
          "to_account_id",
          "ticketId",
          "userEmail",
          "limit",
          "reason",
          "priority",
        ),
        fc.anything(),
      ),
    );
    fc.assert(
      fc.property(fc.nat(2), fc.nat(20), argument, (which, toolIndex, args) => {
        const { agent, world } = worlds[which] as (typeof worlds)[number];
        const tool = agent.tools[toolIndex % agent.tools.length]?.name as string;
        const answer = world.call(tool, args);
        expect(typeof answer.content).toBe("string");
        if (!answer.ok) expect(json(answer.content).error).toBe(answer.error);
      }),
      { numRuns: 3000 },
    );
  });
});
