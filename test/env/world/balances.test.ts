import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { goalOf } from "../../../env/people/goal.ts";
import { Rng } from "../../../env/rng.ts";
import { createWorld } from "../../../env/world/index.ts";
import { WorldModel } from "../../../env/world/model.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { mcpTool } from "../../support/specs.ts";

/** A clinic's invoices, paid from a saved card, and a hotel's loyalty points, spent on a stay. */
const BALANCES = {
  name: "balances",
  system_prompt: "You help patients and guests with their bills and points.",
  policy: [],
  tools: [
    mcpTool(
      "get_patient",
      "Get a patient's record.",
      { patient_id: { type: "string" } },
      undefined,
      {
        patient_id: { type: "string" },
        outstanding_balance: { type: "number" },
      },
    ),
    mcpTool(
      "list_invoices",
      "List a patient's invoices.",
      {
        patient_id: { type: "string" },
        status: { type: "string", enum: ["unpaid", "partially_paid", "paid", "written_off"] },
      },
      ["patient_id"],
      {
        invoices: {
          type: "array",
          items: {
            type: "object",
            properties: {
              invoice_id: { type: "string" },
              remaining_balance: { type: "number" },
              status: { type: "string" },
            },
          },
        },
      },
    ),
    mcpTool(
      "pay_invoice",
      "Charge a saved card for an invoice. The invoice must be 'unpaid' or 'partially_paid'.",
      {
        invoice_id: { type: "string" },
        payment_method_id: { type: "string" },
        amount: { type: "number", exclusiveMinimum: 0 },
      },
      ["invoice_id", "payment_method_id", "amount"],
      {
        receipt_id: { type: "string" },
        amount_charged: { type: "number" },
        remaining_balance: { type: "number" },
      },
    ),
    mcpTool(
      "get_loyalty_account",
      "Get a patient's loyalty account.",
      { patient_id: { type: "string" } },
      ["patient_id"],
      { loyalty_number: { type: "string" }, points_balance: { type: "integer" } },
    ),
    mcpTool(
      "get_appointment",
      "Get an appointment.",
      { appointment_id: { type: "string" } },
      ["appointment_id"],
      { appointment_id: { type: "string" }, total: { type: "number" } },
    ),
    mcpTool(
      "redeem_points",
      "Redeem loyalty points against an upcoming appointment. 1,000 points = 5.00 off.",
      {
        patient_id: { type: "string" },
        appointment_id: { type: "string" },
        points: { type: "integer", minimum: 1000, multipleOf: 1000 },
      },
    ),
  ],
};

describe("a change that draws down a balance", () => {
  const agent = Agent.from(BALANCES);
  const model = WorldModel.of(agent);

  it("reads a payment as lowering what its record owes, and a count spent as the person's balance of it", () => {
    expect(model.tools.get("pay_invoice")?.draws).toEqual({
      param: "amount",
      entity: "invoice",
      field: "remaining_balance",
      onTarget: true,
    });
    expect(model.tools.get("redeem_points")?.draws).toEqual({
      param: "points",
      entity: "loyalty_account",
      field: "points_balance",
      onTarget: false,
      worth: { per: 1000, off: 5 },
    });
    // A bare amount is written as the answer shows it, not as `pay_amount`.
    expect(model.tools.get("pay_invoice")?.sets.get("amount")).toBe("amount_charged");
  });

  const invoices = (world: ReturnType<typeof createWorld>) =>
    JSON.parse(world.call("list_invoices", { patient_id: world.state.person.customer_id }).content)
      .invoices as { invoice_id: string; remaining_balance: number; status: string }[];

  it("a payment lowers what the invoice owes, marks it paid when nothing is left, and is refused past it", () => {
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "pay_invoice", world: "normal" }),
    });
    const card = world.person.ids.payment_method_id as string;
    const invoice = invoices(world).find((i) => i.remaining_balance > 20) as {
      invoice_id: string;
      remaining_balance: number;
    };
    const owed = invoice.remaining_balance;
    const pay = (amount: number) =>
      world.call("pay_invoice", {
        invoice_id: invoice.invoice_id,
        payment_method_id: card,
        amount,
      });
    const over = JSON.parse(pay(Math.round((owed + 0.01) * 100) / 100).content);
    expect(over).toMatchObject({ error: "invalid_amount", remaining_balance: owed });
    const part = JSON.parse(pay(10).content);
    expect(part).toMatchObject({ amount_charged: 10 });
    expect(part.remaining_balance).toBeCloseTo(owed - 10, 2);
    expect(invoices(world).find((i) => i.invoice_id === invoice.invoice_id)?.status).toBe(
      "partially_paid",
    );
    // What the patient owes in all is what their invoices owe, and falls with each payment.
    const outstanding = () =>
      JSON.parse(world.call("get_patient", { patient_id: world.state.person.customer_id }).content)
        .outstanding_balance as number;
    const sum = invoices(world).reduce((total, i) => total + i.remaining_balance, 0);
    expect(outstanding()).toBeCloseTo(sum, 2);
    const rest = JSON.parse(pay(part.remaining_balance).content);
    expect(rest.remaining_balance).toBe(0);
    // Each payment has a receipt of its own; the invoice holds none of them.
    expect(rest.receipt_id).toEqual(expect.any(String));
    expect(rest.receipt_id).not.toBe(part.receipt_id);
    expect(model.tools.get("pay_invoice")?.makes).toEqual(["receipt_id"]);
    expect(model.entities.get("invoice")?.fields.has("receipt_id")).toBe(false);
    expect(outstanding()).toBeCloseTo(sum - part.remaining_balance, 2);
    expect(invoices(world).find((i) => i.invoice_id === invoice.invoice_id)?.status).toBe("paid");
  });

  it("a paid or written-off invoice owes nothing, and one the person means to pay owes what they pay", () => {
    for (let seed = 0; seed < 12; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "pay_invoice", world: "normal" }, seed),
      });
      for (const invoice of invoices(world))
        if (invoice.status === "paid" || invoice.status === "written_off")
          expect(invoice.remaining_balance).toBe(0);
        else expect(invoice.remaining_balance).toBeGreaterThan(0);
      const goal = goalOf(world, new Rng(seed, "goal")).arguments;
      const subject = invoices(world).find((i) => i.invoice_id === goal.invoice_id);
      expect(goal.amount).toBeLessThanOrEqual(subject?.remaining_balance as number);
      expect(world.call("pay_invoice", goal).ok).toBe(true);
    }
  });

  it("spending points lowers the person's balance, in the blocks the argument takes, and is refused past it", () => {
    for (let seed = 0; seed < 12; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "redeem_points", world: "normal" }, seed),
      });
      const patient = world.state.person.customer_id;
      const balance = () =>
        JSON.parse(world.call("get_loyalty_account", { patient_id: patient }).content)
          .points_balance as number;
      const held = balance();
      expect(held).toBeGreaterThanOrEqual(1000);
      const goal = goalOf(world, new Rng(seed, "goal")).arguments as { points: number };
      expect(goal.points % 1000).toBe(0);
      expect(goal.points).toBeLessThanOrEqual(held);
      const over = JSON.parse(
        world.call("redeem_points", { ...goal, points: held - (held % 1000) + 1000 }).content,
      );
      expect(over).toMatchObject({ error: "insufficient_balance", points_balance: held });
      const total = () =>
        JSON.parse(
          world.call("get_appointment", {
            appointment_id: (goal as { appointment_id?: string }).appointment_id,
          }).content,
        ).total as number;
      const before = total();
      expect(world.call("redeem_points", goal).ok).toBe(true);
      expect(balance()).toBe(held - goal.points);
      // What the points are worth comes off the appointment's total, never below nothing.
      expect(total()).toBeCloseTo(Math.max(0, before - (goal.points / 1000) * 5), 2);
    }
  });
});
