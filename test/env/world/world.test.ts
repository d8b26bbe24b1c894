import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { InputError } from "../../../env/util/errors.ts";
import { createWorld, World } from "../../../env/world/index.ts";
import { WorldSnapshotSchema, WorldStateSchema } from "../../../spec/index.ts";
import { financeSpec, helpdeskSpec, referenceSpec } from "../../fixtures/reference-spec.ts";
import { situationOf, withDefaultAxes } from "../../fixtures/situations.ts";

const retail = Agent.from(withDefaultAxes(referenceSpec));
const finance = Agent.from(financeSpec);
const helpdesk = Agent.from(helpdeskSpec);

const json = (content: string) => JSON.parse(content) as Record<string, unknown>;

describe("determinism", () => {
  for (const [name, agent, tool] of [
    ["retail", retail, "get_order"],
    ["finance", finance, "transfer_funds"],
    ["helpdesk", helpdesk, "listTickets"],
  ] as const) {
    it(`${name}: same spec, situation and seed give identical records and answers, call for call`, () => {
      const situation = situationOf(agent, { tool });
      const a = createWorld({ spec: agent, situation });
      const b = createWorld({ spec: agent, situation });
      expect(b.snapshot()).toEqual(a.snapshot());
      expect(b.person).toEqual(a.person);
      for (const t of agent.tools) {
        const args = Object.fromEntries(
          Object.keys(t.parameters.properties ?? {}).map((p) => [
            p,
            a.person.ids[p] ?? a.person.email,
          ]),
        );
        expect(b.call(t.name, args)).toEqual(a.call(t.name, args));
      }
      expect(b.snapshot()).toEqual(a.snapshot());
    });

    it(`${name}: a different seed gives different records`, () => {
      const a = createWorld({ spec: agent, situation: situationOf(agent, { tool }, 1) });
      const b = createWorld({ spec: agent, situation: situationOf(agent, { tool }, 2) });
      expect(b.snapshot().collections).not.toEqual(a.snapshot().collections);
      expect(b.person.name === a.person.name && b.person.email === a.person.email).toBe(false);
    });
  }
});

describe("records shaped like the tools", () => {
  it("fills output-schema fields with values of the declared type and plausible content", () => {
    const world = createWorld({
      spec: finance,
      situation: situationOf(finance, { tool: "get_balance" }),
    });
    const balance = json(
      world.call("get_balance", { account_id: world.person.ids.account_id }).content,
    );
    // Exactly the schema's fields: the record's status is not one of them, so it is not shown.
    expect(Object.keys(balance)).toEqual(["account_id", "currency", "current", "available"]);
    expect(balance.account_id).toMatch(/^ACC-\d{5}$/);
    expect(["USD", "EUR", "GBP", "CAD"]).toContain(balance.currency);
    expect(typeof balance.current).toBe("number");
    expect(Number.isInteger((balance.current as number) * 100)).toBe(true);
  });

  it("takes id shapes from description examples and schema patterns, and fields from descriptions", () => {
    const world = createWorld({
      spec: retail,
      situation: situationOf(retail, { tool: "get_order" }),
    });
    expect(world.person.ids.order_id).toMatch(/^W\d{7}$/);
    const order = json(world.call("get_order", { order_id: world.person.ids.order_id }).content);
    expect(Object.keys(order)).toEqual([
      "order_id",
      "items",
      "status",
      "total",
      "shipping_address",
    ]);
    const items = order.items as Record<string, unknown>[];
    expect(items.length).toBeGreaterThan(0);
    const sum = items.reduce((acc, i) => acc + (i.price as number) * (i.quantity as number), 0);
    expect(order.total).toBeCloseTo(sum, 2);
    expect(order.shipping_address).toMatch(/^\d+ [A-Z][a-z]+ [A-Z][a-z]+, [A-Z]/);
    const shipment = json(
      world.call("track_shipment", { order_id: world.person.ids.order_id }).content,
    );
    expect(Object.keys(shipment)).toEqual([
      "order_id",
      "carrier",
      "tracking_number",
      "last_scan",
      "status",
    ]);

    const desk = createWorld({
      spec: helpdesk,
      situation: situationOf(helpdesk, { tool: "getTicket" }),
    });
    const ticketId = desk.person.ids.ticketId as string;
    expect(ticketId).toMatch(/^INC[0-9]{6}$/);
    const ticket = json(desk.call("getTicket", { ticketId }).content);
    expect(["low", "normal", "high", "urgent"]).toContain(ticket.priority);
    expect(ticket.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(ticket.assignee).toMatch(/^\S+ \S+/);
  });

  it('never fills a field with a schema echo such as "string"', () => {
    for (const agent of [retail, finance, helpdesk]) {
      const world = createWorld({ spec: agent, situation: situationOf(agent, {}) });
      const values = JSON.stringify(world.snapshot().collections);
      expect(values).not.toMatch(/"(string|number|value|example|text)"/i);
      expect(values).not.toMatch(/example\.com|John Doe|123-456-7890/);
    }
  });

  it("describes itself for the row: world kind, person, subject and record counts", () => {
    const world = createWorld({
      spec: retail,
      situation: situationOf(retail, { tool: "get_order" }),
    });
    const state = WorldStateSchema.parse(world.describe());
    expect(state.subject).toEqual({
      entity: "order",
      id: world.person.ids.order_id,
      exists: true,
      status: expect.any(String),
    });
    expect(state.person.email).toBe(world.person.email);
    expect(state.records.orders).toBeGreaterThan(0);
  });
});

describe("reads and writes", () => {
  it("retail: a change is seen by later reads and a final state refuses further changes", () => {
    const world = createWorld({
      spec: retail,
      situation: situationOf(retail, { tool: "update_address" }),
    });
    const order_id = world.person.ids.order_id as string;
    const moved = world.call("update_address", {
      order_id,
      address: "5 Quay Street, Leeds LS1 4AP",
    });
    expect(moved.ok).toBe(true);
    expect(json(world.call("get_order", { order_id }).content).shipping_address).toBe(
      "5 Quay Street, Leeds LS1 4AP",
    );
    expect(json(world.call("cancel_order", { order_id, reason: "other" }).content).status).toBe(
      "cancelled",
    );
    const again = world.call("cancel_order", { order_id, reason: "other" });
    expect(again.error).toBe("invalid_state");
    expect(json(again.content).message).toMatch(/is cancelled/);
  });

  it("finance: a transfer moves money, is refused beyond the balance, and shows in both ledgers", () => {
    const world = createWorld({
      spec: finance,
      situation: situationOf(finance, { tool: "transfer_funds" }),
    });
    const { from_account_id, to_account_id } = world.person.ids as Record<string, string>;
    const before = json(world.call("get_balance", { account_id: from_account_id }).content)
      .available as number;
    const toBefore = json(world.call("get_balance", { account_id: to_account_id }).content)
      .available as number;
    const transfer = world.call("transfer_funds", { from_account_id, to_account_id, amount: 25.5 });
    expect(transfer.ok).toBe(true);
    const created = json(transfer.content);
    expect(created.transfer_id).toMatch(/^[A-Z]{3}-\d{6}$/);
    expect(
      json(world.call("get_balance", { account_id: from_account_id }).content).available,
    ).toBeCloseTo(before - 25.5, 2);
    expect(
      json(world.call("get_balance", { account_id: to_account_id }).content).available,
    ).toBeCloseTo(toBefore + 25.5, 2);
    const ledger = json(
      world.call("list_transactions", { account_id: to_account_id, limit: 1 }).content,
    ).transactions as Record<string, unknown>[];
    expect(ledger[0]).toMatchObject({
      amount: 25.5,
      type: "transfer_in",
      description: `transfer funds ${created.transfer_id}`,
    });
    const tooMuch = world.call("transfer_funds", { from_account_id, to_account_id, amount: 1e9 });
    expect(tooMuch.error).toBe("insufficient_funds");
    expect(json(tooMuch.content)).toMatchObject({ requested: 1e9, available: expect.any(Number) });
  });

  it("helpdesk: a created ticket is new, stable for the seed, and found by later reads and lists", () => {
    const situation = situationOf(helpdesk, { tool: "createTicket" });
    const make = () => createWorld({ spec: helpdesk, situation });
    const world = make();
    const existing = new Set((world.snapshot().collections.tickets ?? []).map((t) => t.ticketId));
    const args = {
      userEmail: world.person.email,
      subject: "VPN drops every hour",
      priority: "high",
    };
    const created = json(world.call("createTicket", args).content);
    expect(Object.keys(created)).toEqual(["ticketId", "status"]);
    expect(created.ticketId).toMatch(/^INC[0-9]{6}$/);
    expect(existing.has(created.ticketId)).toBe(false);
    expect(json(make().call("createTicket", args).content).ticketId).toBe(created.ticketId);
    expect(json(world.call("getTicket", { ticketId: created.ticketId }).content)).toMatchObject({
      subject: "VPN drops every hour",
      priority: "high",
    });
    const listed = json(world.call("listTickets", { userEmail: world.person.email }).content)
      .tickets as Record<string, unknown>[];
    expect(listed.map((t) => t.ticketId)).toContain(created.ticketId);
    expect(
      json(world.call("closeTicket", { ticketId: created.ticketId, resolution: "fixed" }).content)
        .status,
    ).toBe("closed");
    expect(
      json(world.call("listTickets", { userEmail: world.person.email, status: "closed" }).content)
        .tickets,
    ).toContainEqual(expect.objectContaining({ ticketId: created.ticketId }));
  });

  it("hands off through a transfer-to-human tool and says so", () => {
    const world = createWorld({
      spec: retail,
      situation: situationOf(retail, { tool: "transfer_to_human" }),
    });
    expect(world.handedOff).toBe(false);
    expect(
      json(world.call("transfer_to_human", { summary: "wants a manager" }).content).status,
    ).toBe("transferred");
    expect(world.handedOff).toBe(true);
  });
});

describe("snapshots", () => {
  it("round-trips through JSON: the restored world answers exactly as the original would", () => {
    const situation = situationOf(finance, {
      tool: "transfer_funds",
      condition: "permission_denied",
    });
    const world = createWorld({ spec: finance, situation });
    const { from_account_id, to_account_id } = world.person.ids as Record<string, string>;
    world.call("transfer_funds", { from_account_id, to_account_id, amount: 5 });
    world.call("pay_bill", { account_id: from_account_id, payee_id: "PAY-000000", amount: 5 });
    const snapshot = WorldSnapshotSchema.parse(JSON.parse(JSON.stringify(world.snapshot())));
    const restored = World.restore(financeSpec, situation, snapshot);
    expect(restored.snapshot()).toEqual(world.snapshot());
    expect(restored.person).toEqual(world.person);
    expect(restored.describe()).toEqual(world.describe());
    for (const call of [
      ["transfer_funds", { from_account_id, to_account_id, amount: 5 }],
      ["get_balance", { account_id: from_account_id }],
      ["freeze_card", { card_id: "CRD-1" }],
    ] as const) {
      expect(restored.call(call[0], call[1])).toEqual(world.call(call[0], call[1]));
    }
    expect(restored.faults).toEqual(world.faults);
  });

  it("refuses a snapshot of another spec or situation, and a malformed one", () => {
    const situation = situationOf(retail, {});
    const snapshot = createWorld({ spec: retail, situation }).snapshot();
    expect(() => World.restore(finance, situation, snapshot)).toThrow(
      /spec_hash: was taken from spec/,
    );
    expect(() => World.restore(retail, situationOf(retail, { stance: "vague" }), snapshot)).toThrow(
      /situation_id: was taken from situation/,
    );
    expect(() => World.restore(retail, situation, { ...snapshot, version: 2 })).toThrow(InputError);
  });
});

describe("situations the spec does not have", () => {
  it("are refused before a world is built", () => {
    expect(() =>
      createWorld({ spec: retail, situation: situationOf(retail, { tool: "fly_to_moon" }) }),
    ).toThrow(/axes\.tool: "fly_to_moon" is not a tool of this spec/);
    expect(() =>
      createWorld({
        spec: referenceSpec,
        situation: situationOf(referenceSpec, { world: "empty_account" }),
      }),
    ).toThrow(/axes\.world/);
  });
});
