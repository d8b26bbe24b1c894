import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { createWorld } from "../../../env/world/index.ts";
import { financeSpec, helpdeskSpec } from "../../fixtures/reference-spec.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { specOf } from "../../support/specs.ts";

const finance = Agent.from(financeSpec);

describe("money", () => {
  it("refuses amounts with fractions of a cent, so transfers never make or lose money", () => {
    const world = createWorld({ spec: finance, situation: situationOf(finance, {}) });
    type Account = { account_id: string; current: number; available: number };
    const accounts = () => world.snapshot().collections.accounts as Account[];
    const cents = () =>
      accounts().reduce(
        (sum, a) => sum + Math.round(a.current * 100) + Math.round(a.available * 100),
        0,
      );
    const before = cents();
    const ids = accounts().map((a) => a.account_id);
    const refused = world.call("transfer_funds", {
      from_account_id: ids[0],
      to_account_id: ids[1],
      amount: 0.004,
    });
    expect(refused).toMatchObject({ ok: false, error: "invalid_amount" });
    expect(JSON.parse(refused.content)).toMatchObject({ argument: "amount", value: 0.004 });
    let moved = 0;
    for (let i = 0; i < 400; i++) {
      const amount = [0.005, 0.015, 0.01, 1.23, 0.004, 0.29][i % 6] as number;
      const answer = world.call("transfer_funds", {
        from_account_id: ids[i % ids.length],
        to_account_id: ids[(i + 1) % ids.length],
        amount,
      });
      if (answer.ok) moved++;
      else expect(answer.error).toBe("invalid_amount");
    }
    expect(moved).toBeGreaterThan(100);
    expect(cents()).toBe(before);
  });
});

describe("search", () => {
  it("a search tool matches the query against the records' text", () => {
    const spec = specOf([
      ["search_products", { query: { type: "string" }, limit: { type: "integer" } }, ["query"]],
      ["get_product", { product_id: { type: "string" } }, ["product_id"]],
    ]);
    const world = createWorld({ spec, situation: situationOf(spec, { tool: "search_products" }) });
    const products = world.snapshot().collections.products ?? [];
    const word = String(products[0]?.name).split(" ")[0] as string;
    const found = JSON.parse(world.call("search_products", { query: word }).content)
      .products as Record<string, unknown>[];
    expect(found.length).toBeGreaterThan(0);
    expect(found.length).toBeLessThan(products.length);
    for (const p of found) expect(JSON.stringify(p).toLowerCase()).toContain(word.toLowerCase());
  });
});

describe("the world cannot be rewritten by a call", () => {
  it("a create ignores undeclared arguments and never takes an existing record's id", () => {
    const world = createWorld({
      spec: helpdeskSpec,
      situation: situationOf(helpdeskSpec, { tool: "createTicket" }),
    });
    const existing = world.call("listTickets", { userEmail: world.person.email });
    const ticket = (JSON.parse(existing.content).tickets as Record<string, unknown>[])[0] as Record<
      string,
      unknown
    >;
    const created = JSON.parse(
      world.call("createTicket", {
        userEmail: world.person.email,
        subject: "VPN is down again",
        priority: "high",
        ticketId: ticket.ticketId,
      } as never).content,
    );
    expect(created.ticketId).not.toBe(ticket.ticketId);
    const after = JSON.parse(world.call("getTicket", { ticketId: ticket.ticketId }).content);
    expect(after.subject).toBe(ticket.subject);
  });

  it("arguments that are not JSON do not use up a scheduled fault", () => {
    const world = createWorld({
      spec: financeSpec,
      situation: situationOf(financeSpec, { tool: "get_balance", condition: "timeout" }),
    });
    expect(world.call("get_balance", "{not json").error).toBe("invalid_arguments");
    expect(world.call("get_balance", { account_id: world.person.ids.account_id }).error).toBe(
      "timeout",
    );
  });
});
