import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { Planner } from "../../../env/plan.ts";
import { createWorld } from "../../../env/world/index.ts";
import { situationOf } from "../../fixtures/situations.ts";

/** Reservations owned by customers, whose records name their owner, someone else and a code. */
const SPEC = {
  name: "owner links",
  system_prompt: "You help customers with their reservations.",
  policy: [],
  tools: [
    {
      name: "find_customer_by_email",
      description: "Find a customer's id by their email.",
      inputSchema: {
        type: "object",
        properties: { email: { type: "string" } },
        required: ["email"],
      },
    },
    {
      name: "get_reservation",
      description: "Get the details of a reservation.",
      inputSchema: {
        type: "object",
        properties: { reservation_id: { type: "string" } },
        required: ["reservation_id"],
      },
      outputSchema: {
        type: "object",
        properties: {
          reservation_id: { type: "string" },
          owner_customer_id: { type: "string" },
          recipient_customer_id: { type: "string" },
          primary_customer_id: { type: "string", pattern: "^P-[0-9]{4}$" },
          cabin: { type: "string" },
        },
      },
    },
    {
      name: "list_reservations",
      description: "List the reservations of a customer.",
      inputSchema: {
        type: "object",
        properties: { customer_id: { type: "string" } },
        required: ["customer_id"],
      },
    },
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
