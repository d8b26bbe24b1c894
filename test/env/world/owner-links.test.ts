import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { Planner } from "../../../env/plan.ts";
import { createWorld } from "../../../env/world/index.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { mcpTool } from "../../support/specs.ts";

/** Reservations owned by customers, whose records name their owner, someone else and a code. */
const SPEC = {
  name: "owner links",
  system_prompt: "You help customers with their reservations.",
  policy: [],
  tools: [
    mcpTool("find_customer_by_email", "Find a customer's id by their email.", {
      email: { type: "string" },
    }),
    mcpTool(
      "get_reservation",
      "Get the details of a reservation.",
      { reservation_id: { type: "string" } },
      ["reservation_id"],
      {
        reservation_id: { type: "string" },
        owner_customer_id: { type: "string" },
        recipient_customer_id: { type: "string" },
        primary_customer_id: { type: "string", pattern: "^P-[0-9]{4}$" },
        cabin: { type: "string" },
      },
    ),
    mcpTool("list_reservations", "List the reservations of a customer.", {
      customer_id: { type: "string" },
    }),
  ],
};

describe("a record's field that names its owner's id under a qualifier (owner_customer_id)", () => {
  it("holds the owner's id; one for someone else, or whose pattern takes no such id, keeps its own", () => {
    const agent = Agent.from(SPEC);
    for (let seed = 0; seed < 5; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "get_reservation" }),
        seed,
      });
      const reservations = world.snapshot().collections.reservations ?? [];
      expect(reservations.length).toBeGreaterThan(3);
      for (const reservation of reservations) {
        expect(reservation.owner_customer_id).toBe(reservation.customer_id);
        expect(reservation.recipient_customer_id).not.toBe(reservation.customer_id);
        expect(reservation.primary_customer_id).toMatch(/^P-[0-9]{4}$/);
      }
    }
  });

  it("is the owner's on every reservation of the airline spec's worlds", () => {
    const airline = Agent.from(
      JSON.parse(
        readFileSync(join(import.meta.dirname, "../../fixtures/specs/airline.json"), "utf8"),
      ),
    );
    let checked = 0;
    for (const situation of [...new Planner(airline, { rows: 40 }).walk()].slice(0, 40)) {
      const world = createWorld({ spec: airline, situation });
      for (const reservation of world.snapshot().collections.reservations ?? []) {
        expect(reservation.owner_customer_id).toBe(reservation.customer_id);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});

/** A customer whose profile lists their payment methods and reservations, and a tool that adds a card. */
const PROFILE = {
  name: "owned lists",
  system_prompt: "You help customers with their profile.",
  policy: [],
  tools: [
    mcpTool(
      "get_customer_details",
      "Get a customer's profile: name, email, address, saved payment methods and reservation numbers.",
      { customer_id: { type: "string" } },
    ),
    mcpTool("list_payment_methods", "List the payment methods of a customer.", {
      customer_id: { type: "string" },
    }),
    mcpTool("get_reservation", "Get a reservation.", { reservation_id: { type: "string" } }),
    mcpTool("add_payment_method", "Add a card to a customer's payment methods.", {
      customer_id: { type: "string" },
      card_last4: { type: "string" },
    }),
  ],
};

describe("a person's field that lists what they own (saved_payment_methods, reservation_numbers)", () => {
  it("shows the ids of the records they hold now, and a record added after", () => {
    const agent = Agent.from(PROFILE);
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "get_customer_details" }),
    });
    const customerId = world.person.ids.customer_id as string;
    const profile = () =>
      JSON.parse(world.call("get_customer_details", { customer_id: customerId }).content);
    const owned = (collection: string, idField: string) =>
      (world.snapshot().collections[collection] ?? [])
        .filter((r) => r.customer_id === customerId)
        .map((r) => r[idField]);
    const before = profile();
    expect(before.saved_payment_methods).toEqual(owned("payment_methods", "payment_method_id"));
    expect(before.saved_payment_methods.length).toBeGreaterThan(0);
    expect(before.reservation_numbers).toEqual(owned("reservations", "reservation_id"));
    // The person's own address is a detail they state, not a list of records.
    expect(typeof before.address).toBe("string");
    const added = world.call("add_payment_method", { customer_id: customerId, card_last4: "4242" });
    expect(added.ok).toBe(true);
    const after = profile();
    expect(after.saved_payment_methods).toEqual(owned("payment_methods", "payment_method_id"));
    expect(after.saved_payment_methods.length).toBe(before.saved_payment_methods.length + 1);
  });
});
