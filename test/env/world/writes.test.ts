import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { goalOf } from "../../../env/people/goal.ts";
import { Rng } from "../../../env/rng.ts";
import { WORLD_TODAY } from "../../../env/world/dates.ts";
import { createWorld } from "../../../env/world/index.ts";
import { WorldModel } from "../../../env/world/model.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { mcpTool } from "../../support/specs.ts";

/** A clinic: patients, therapists with open slots, appointments, a waitlist and direct debits. */
const CLINIC = {
  name: "clinic",
  system_prompt: "You help patients with their bookings and payments.",
  policy: [],
  tools: [
    mcpTool("list_therapists", "List the clinic's therapists.", {}, []),
    mcpTool(
      "search_available_slots",
      "Search open slots.",
      { therapist_id: { type: "string" } },
      [],
      {
        slots: {
          type: "array",
          items: {
            type: "object",
            properties: {
              slot_id: { type: "string" },
              start: { type: "string", format: "date-time" },
              therapist_name: { type: "string" },
            },
          },
        },
      },
    ),
    mcpTool(
      "get_appointment",
      "Get an appointment.",
      { appointment_id: { type: "string" } },
      ["appointment_id"],
      {
        appointment_id: { type: "string" },
        start: { type: "string", format: "date-time" },
        therapist_name: { type: "string" },
      },
    ),
    mcpTool("reschedule_appointment", "Move an appointment to a new slot.", {
      appointment_id: { type: "string" },
      new_slot_id: { type: "string" },
    }),
    mcpTool(
      "book_appointment",
      "Book an appointment in an open slot.",
      {
        patient_id: { type: "string" },
        slot_id: { type: "string" },
      },
      ["patient_id", "slot_id"],
    ),
    mcpTool(
      "list_appointments",
      "List a patient's appointments.",
      {
        patient_id: { type: "string" },
        status: { type: "string", enum: ["upcoming", "past", "cancelled"] },
      },
      ["patient_id"],
    ),
    mcpTool(
      "waitlist_add",
      "Put a patient on the waitlist for earlier availability.",
      {
        patient_id: { type: "string" },
        location: { type: "string", enum: ["riverside", "northgate"] },
        therapist_id: { type: "string" },
      },
      ["patient_id", "location"],
    ),
    mcpTool(
      "get_account",
      "Get a patient's billing account: balance.",
      { account_id: { type: "string" } },
      ["account_id"],
      { account_id: { type: "string" }, balance: { type: "number" } },
    ),
    mcpTool("direct_debit_setup", "Set up a monthly direct debit from an account.", {
      account_id: { type: "string" },
      monthly_amount: { type: "number" },
    }),
    mcpTool("transfer_funds", "Move money from one of the patient's accounts to another.", {
      from_account_id: { type: "string" },
      to_account_id: { type: "string" },
      amount: { type: "number" },
    }),
  ],
};

describe("what a write makes", () => {
  const agent = Agent.from(CLINIC);
  const model = WorldModel.of(agent);

  it("a new record starts in its entity's first state (a booking upcoming, never past); money moved is completed", () => {
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "book_appointment", world: "normal" }),
    });
    const goal = goalOf(world, new Rng(7, "goal")).arguments;
    const booked = JSON.parse(world.call("book_appointment", goal).content);
    expect(booked.status).toBe("upcoming");
    const moving = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "transfer_funds", world: "normal" }),
    });
    const transfer = goalOf(moving, new Rng(7, "goal")).arguments;
    expect(JSON.parse(moving.call("transfer_funds", transfer).content).status).toBe("completed");
  });

  it("an appointment moved to a new slot takes the slot's start and therapist; a slot still to come starts ahead", () => {
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "reschedule_appointment", world: "normal" }),
    });
    const slots = JSON.parse(world.call("search_available_slots", {}).content).slots as {
      slot_id: string;
      start: string;
      therapist_name: string;
    }[];
    for (const slot of slots) expect(Date.parse(slot.start)).toBeGreaterThan(WORLD_TODAY);
    const appointment = world.person.ids.appointment_id as string;
    const slot = slots[0] as (typeof slots)[number];
    expect(
      world.call("reschedule_appointment", {
        appointment_id: appointment,
        new_slot_id: slot.slot_id,
      }).ok,
    ).toBe(true);
    expect(
      JSON.parse(world.call("get_appointment", { appointment_id: appointment }).content),
    ).toEqual({
      appointment_id: appointment,
      start: slot.start,
      therapist_name: slot.therapist_name,
    });
    // The slot is the clinic's, not the person's: "to the slot …", never "for my slot …".
    const asked = goalOf(world, new Rng(7, "goal")).text.replace(/[\uE000\uE001]/g, "");
    expect(asked).toMatch(/^reschedule my appointment \S+ to the slot \S+$/);
  });

  it("a therapist's open slots are the catalog's too: anyone may book one, and the person picks one", () => {
    expect(model.entities.get("therapist")?.catalog).toBe(true);
    expect(model.entities.get("slot")?.catalog).toBe(true);
    // A therapist is called by a person's name, and each slot names its own therapist so.
    const clinic = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "book_appointment", world: "normal" }),
    }).snapshot().collections;
    const therapists = new Map(
      (clinic.therapists ?? []).map((t) => [t.therapist_id, t.name as string]),
    );
    for (const name of therapists.values()) expect(name).toMatch(/^[A-Z][a-z]+ [A-Z][a-z'-]+/);
    expect(clinic.slots?.length).toBeGreaterThan(0);
    for (const slot of clinic.slots ?? [])
      expect(slot.therapist_name).toBe(therapists.get(slot.therapist_id));
    for (let seed = 0; seed < 6; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "book_appointment", world: "normal" }, seed),
      });
      const goal = goalOf(world, new Rng(seed, "goal")).arguments;
      expect(goal.slot_id).toEqual(expect.any(String));
      expect(world.call("book_appointment", goal).ok).toBe(true);
    }
  });

  it("setting up a direct debit names an amount without paying it: the account keeps its balance", () => {
    expect(model.tools.get("direct_debit_setup")?.debit).toBeNull();
    expect(model.tools.get("transfer_funds")?.debit?.param).toBe("from_account_id");
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "direct_debit_setup", world: "normal" }),
    });
    const account = world.person.ids.account_id as string;
    const before = world.call("get_account", { account_id: account }).content;
    expect(world.call("direct_debit_setup", { account_id: account, monthly_amount: 80 }).ok).toBe(
      true,
    );
    expect(world.call("get_account", { account_id: account }).content).toBe(before);
  });

  it("joining a waitlist makes an entry; the therapist it optionally names is not changed", () => {
    const tool = model.tools.get("waitlist_add");
    expect([tool?.kind, tool?.entity]).toEqual(["create", "waitlist"]);
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "waitlist_add", world: "normal" }),
    });
    const therapists = world.call("list_therapists", {}).content;
    const therapist = JSON.parse(therapists).therapists?.[0]?.therapist_id ?? "T01";
    const entry = JSON.parse(
      world.call("waitlist_add", {
        patient_id: world.state.person.customer_id,
        location: "northgate",
        therapist_id: therapist,
      }).content,
    );
    expect(entry).toMatchObject({ location: "northgate", status: "active" });
    expect(world.call("list_therapists", {}).content).toBe(therapists);
    // The person asking to join names no therapist: an optional pick from a catalog, any will do.
    for (let seed = 0; seed < 6; seed++)
      expect(goalOf(world, new Rng(seed, "goal")).arguments).not.toHaveProperty("therapist_id");
  });
});

describe("a change to another record of a catalog", () => {
  it("keeps that record's id where the record shows it (`change_plan` → the line's `plan_code`)", () => {
    const agent = Agent.from({
      name: "lines",
      system_prompt: "You help customers with their phone lines.",
      policy: [],
      tools: [
        mcpTool("list_plans", "List the plans on offer.", {}, [], {
          plans: {
            type: "array",
            items: { type: "object", properties: { plan_code: { type: "string" } } },
          },
        }),
        mcpTool("get_line", "Get a line.", { line_id: { type: "string" } }, ["line_id"], {
          line_id: { type: "string" },
          plan_code: { type: "string" },
        }),
        mcpTool("change_plan", "Move a line to another plan.", {
          line_id: { type: "string" },
          plan_code: { type: "string" },
        }),
      ],
    });
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "change_plan", world: "normal" }),
    });
    const line = world.person.ids.line_id as string;
    const plans = JSON.parse(world.call("list_plans", {}).content).plans as { plan_code: string }[];
    const held = JSON.parse(world.call("get_line", { line_id: line }).content).plan_code;
    const other = plans.find((p) => p.plan_code !== held)?.plan_code as string;
    expect(world.call("change_plan", { line_id: line, plan_code: other }).ok).toBe(true);
    expect(JSON.parse(world.call("get_line", { line_id: line }).content).plan_code).toBe(other);
  });
});

describe("a change that brings a record back, or points it at what its name names", () => {
  const agent = Agent.from({
    name: "lines and orders",
    system_prompt: "You help customers with their lines and orders.",
    policy: [],
    tools: [
      mcpTool("get_line", "Get a line.", { line_id: { type: "string" } }, ["line_id"], {
        line_id: { type: "string" },
        status: { type: "string", enum: ["active", "suspended_lost", "suspended_temporary"] },
      }),
      mcpTool("restore_line", "Restore service on a suspended line.", {
        line_id: { type: "string" },
      }),
      mcpTool("suspend_line", "Suspend a line.", {
        line_id: { type: "string" },
        reason: { type: "string", enum: ["lost", "temporary"] },
      }),
      mcpTool("get_order", "Get an order.", { order_id: { type: "string" } }, ["order_id"], {
        order_id: { type: "string" },
        payment_method_id: { type: "string" },
      }),
      mcpTool("list_payment_methods", "List the customer's payment methods.", {
        customer_id: { type: "string" },
      }),
      mcpTool("modify_order_payment", "Change the payment method of an order.", {
        order_id: { type: "string" },
        payment_method_id: { type: "string" },
      }),
    ],
  });

  it("restoring a line makes it active; the line to restore is never active already", () => {
    expect(WorldModel.of(agent).tools.get("restore_line")?.statusAfter).toBe("active");
    for (let seed = 0; seed < 8; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "restore_line", world: "normal" }, seed),
      });
      const line = world.person.ids.line_id as string;
      const status = () => JSON.parse(world.call("get_line", { line_id: line }).content).status;
      expect(status()).not.toBe("active");
      expect(world.call("restore_line", { line_id: line }).ok).toBe(true);
      expect(status()).toBe("active");
      expect(JSON.parse(world.call("restore_line", { line_id: line }).content).error).toBe(
        "invalid_state",
      );
    }
  });

  it("suspending a line leaves it in the kind of suspension the reason names, and no line is suspended twice", () => {
    for (const reason of ["lost", "temporary"]) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "suspend_line", world: "normal" }),
      });
      const line = world.person.ids.line_id as string;
      const status = () => JSON.parse(world.call("get_line", { line_id: line }).content).status;
      expect(status()).toBe("active");
      expect(world.call("suspend_line", { line_id: line, reason }).ok).toBe(true);
      expect(status()).toBe(`suspended_${reason}`);
      expect(
        JSON.parse(world.call("suspend_line", { line_id: line, reason: "lost" }).content).error,
      ).toBe("invalid_state");
    }
  });

  it("changing an order's payment points the order at the payment method given", () => {
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "modify_order_payment", world: "normal" }),
    });
    const order = world.person.ids.order_id as string;
    const method = world.person.ids.payment_method_id as string;
    expect(
      world.call("modify_order_payment", { order_id: order, payment_method_id: method }).ok,
    ).toBe(true);
    expect(JSON.parse(world.call("get_order", { order_id: order }).content).payment_method_id).toBe(
      method,
    );
  });
});

/** A world of a spec with `port_in_number`, and that tool's answer for the person's new number. */
function portedIn(agent: Agent) {
  const world = createWorld({
    spec: agent,
    situation: situationOf(agent, { tool: "port_in_number", world: "normal" }),
  });
  const answer = world.call("port_in_number", {
    customer_id: world.state.person.customer_id,
    phone_number: "4155550123",
  });
  return { world, ported: JSON.parse(answer.content) as Record<string, unknown> };
}

describe("a new record's first state", () => {
  it("is the one named for what the tool does, where its entity has one (`port_in_number` → `port_pending`)", () => {
    const agent = Agent.from({
      name: "ports",
      system_prompt: "You help customers move their numbers.",
      policy: [],
      tools: [
        mcpTool("get_number", "Get a number.", { number_id: { type: "string" } }, ["number_id"], {
          number_id: { type: "string" },
          status: { type: "string", enum: ["active", "port_pending", "closed"] },
        }),
        mcpTool("port_in_number", "Move a number in from another carrier.", {
          customer_id: { type: "string" },
          phone_number: { type: "string" },
        }),
      ],
    });
    expect(portedIn(agent).ported.status).toBe("port_pending");
  });

  it("a write that returns the id of a record another tool reads makes that record, in the state its description says", () => {
    const agent = Agent.from({
      name: "ports",
      system_prompt: "You help customers move their numbers.",
      policy: [],
      tools: [
        mcpTool(
          "get_port_status",
          "Check a port-in request. Statuses: 'submitted', 'completed', 'cancelled'.",
          { port_request_id: { type: "string" } },
        ),
        mcpTool(
          "port_in_number",
          "Start bringing a number over from another carrier. Returns a port_request_id and the new line_id (status 'port_pending').",
          { customer_id: { type: "string" }, phone_number: { type: "string" } },
        ),
      ],
    });
    expect(WorldModel.of(agent).tools.get("port_in_number")?.entity).toBe("port_request");
    const { world, ported } = portedIn(agent);
    expect(ported.status).toBe("port_pending");
    const read = world.call("get_port_status", { port_request_id: ported.port_request_id });
    expect(JSON.parse(read.content)).toMatchObject({ status: "port_pending" });
  });
});
