import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { WorldModel } from "../../../env/world/model.ts";
import { financeSpec, helpdeskSpec, referenceSpec } from "../../fixtures/reference-spec.ts";

const kinds = (spec: unknown) => {
  const model = WorldModel.of(Agent.from(spec));
  return Object.fromEntries(
    [...model.tools.values()].map((t) => [
      t.tool.name,
      `${t.kind} ${t.entity}${t.idParam ? ` by ${t.idParam}` : ""}`,
    ]),
  );
};

describe("WorldModel: what each tool does, inferred from its schema and name", () => {
  it("retail (OpenAI tools, ids from parameters, fields from descriptions)", () => {
    expect(kinds(referenceSpec)).toEqual({
      get_order: "read_one order by order_id",
      list_orders: "read_many order",
      cancel_order: "change order by order_id",
      refund_order: "change order by order_id",
      update_address: "change order by order_id",
      track_shipment: "read_one order by order_id",
      exchange_item: "change item by item_id",
      transfer_to_human: "handoff handoff",
    });
    const model = WorldModel.of(Agent.from(referenceSpec));
    expect(model.entities.get("item")?.parent).toEqual({ entity: "order", field: "order_id" });
    expect(model.tools.get("update_address")?.sets).toEqual(
      new Map([["address", "shipping_address"]]),
    );
    expect(model.tools.get("cancel_order")?.statusAfter).toBe("cancelled");
  });

  it("finance (MCP tools, output schemas, money that moves)", () => {
    expect(kinds(financeSpec)).toEqual({
      get_balance: "read_one account by account_id",
      list_transactions: "read_many transaction",
      list_payees: "read_many payee",
      transfer_funds: "create transfer",
      pay_bill: "create payment",
      freeze_card: "change card by card_id",
    });
    const model = WorldModel.of(Agent.from(financeSpec));
    expect(model.entities.get("account")?.balanceFields).toEqual(["current", "available"]);
    expect(model.tools.get("transfer_funds")).toMatchObject({
      debit: { param: "from_account_id" },
      credit: { param: "to_account_id" },
    });
    expect(model.entities.get("transfer")?.seeded).toBe(false);
  });

  it("helpdesk (camelCase MCP arguments, patterns, a person looked up by email)", () => {
    expect(kinds(helpdeskSpec)).toEqual({
      getTicket: "read_one ticket by ticketId",
      listTickets: "read_many ticket",
      createTicket: "create ticket",
      updateTicketPriority: "change ticket by ticketId",
      closeTicket: "change ticket by ticketId",
      resetPassword: "create password",
    });
    const ticket = WorldModel.of(Agent.from(helpdeskSpec)).entities.get("ticket");
    expect(ticket?.idField).toBe("ticketId");
    expect(ticket?.idFormat.source).toBe("example");
  });
});
