import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { createWorld, type World } from "../../../env/world/index.ts";
import type { AgentSpec, WorldKind, WorldRecord } from "../../../spec/index.ts";
import { situationOf } from "../../fixtures/situations.ts";

type Properties = Record<string, Record<string, unknown>>;

/** An OpenAI tool; every parameter is required unless told otherwise. */
function fn(
  name: string,
  description: string,
  properties: Properties,
  required: string[] = Object.keys(properties),
): AgentSpec["tools"][number] {
  return {
    type: "function",
    function: {
      name,
      description,
      parameters: { type: "object", properties, required } as never,
    },
  };
}

function specOf(...tools: AgentSpec["tools"]): AgentSpec {
  return { name: "shapes", system_prompt: "You help customers.", policy: [], tools };
}

const worldOf = (spec: AgentSpec, tool: string, seed = 7, world: WorldKind = "normal"): World =>
  createWorld({ spec, situation: situationOf(spec, { tool, world }, seed) });

/** Every record of a collection (orders, tickets…), as the world holds them now. */
const recordsOf = (world: World, collection: string): WorldRecord[] =>
  world.snapshot().collections[collection] ?? [];

const json = (content: string) => JSON.parse(content) as Record<string, unknown>;
const SEEDS = [1, 2, 3, 4, 5];

describe("identifier formats follow the description's example or the schema", () => {
  it("an example such as '#W0000000' makes ids of that shape", () => {
    const spec = specOf(
      fn("get_order", "Get an order.", {
        order_id: { type: "string", description: "The order id, such as '#W0000000'." },
      }),
    );
    for (const seed of SEEDS) {
      const world = worldOf(spec, "get_order", seed);
      const ids = recordsOf(world, "orders").map((r) => r.order_id);
      expect(ids.length).toBeGreaterThan(1);
      for (const id of ids) expect(id).toMatch(/^#W\d{7}$/);
      expect(new Set(ids).size).toBe(ids.length);
      expect(world.person.ids.order_id).toMatch(/^#W\d{7}$/);
      expect(world.call("get_order", { order_id: world.person.ids.order_id }).ok).toBe(true);
    }
  });

  it("a JSON-schema pattern makes ids that match it, for seeded and created records alike", () => {
    const pattern = "^TK-[0-9]{5}$";
    const spec = specOf(
      fn("get_ticket", "Get a support ticket.", { ticket_id: { type: "string", pattern } }),
      fn("create_ticket", "Open a new support ticket.", { subject: { type: "string" } }),
    );
    for (const seed of SEEDS) {
      const world = worldOf(spec, "get_ticket", seed);
      const ids = recordsOf(world, "tickets").map((r) => r.ticket_id);
      expect(ids.length).toBeGreaterThan(1);
      for (const id of ids) expect(id).toMatch(new RegExp(pattern));
      const created = world.call("create_ticket", { subject: "My printer is offline" });
      expect(created.ok, created.content).toBe(true);
      const id = json(created.content).ticket_id;
      expect(id).toMatch(new RegExp(pattern));
      expect(ids).not.toContain(id);
      expect(world.call("get_ticket", { ticket_id: id }).ok).toBe(true);
    }
  });

  it("an example with spaces ('ACC 1234 5678') keeps its spaces", () => {
    const spec = specOf(
      fn("get_account", "Get an account.", {
        account_id: { type: "string", description: "The account number, e.g. ACC 1234 5678" },
      }),
    );
    for (const seed of SEEDS) {
      const world = worldOf(spec, "get_account", seed);
      const ids = recordsOf(world, "accounts").map((r) => r.account_id);
      expect(ids.length).toBeGreaterThan(1);
      for (const id of ids) expect(id).toMatch(/^ACC \d{4} \d{4}$/);
      expect(world.person.ids.account_id).toMatch(/^ACC \d{4} \d{4}$/);
      // The example itself is a placeholder, not an id of the world.
      expect(ids).not.toContain("ACC 1234 5678");
    }
  });
});

describe("an enum of ids is a closed set", () => {
  const PLANS = ["PLAN_A", "PLAN_B", "PLAN_C"];
  const spec = specOf(
    fn("get_plan", "Get a plan's details.", { plan_id: { type: "string", enum: PLANS } }),
  );
  const kinds = Agent.from(spec).axes.world.map((w) => w.name as WorldKind);

  it("makes records with those ids only, in every kind of world", () => {
    expect(kinds).toContain("duplicate_records");
    for (const kind of kinds)
      for (const seed of SEEDS) {
        const world = worldOf(spec, "get_plan", seed, kind);
        const ids = recordsOf(world, "plans").map((r) => r.plan_id);
        expect(ids.length, `${kind}, seed ${seed}`).toBeGreaterThan(0);
        for (const id of ids) expect(PLANS, `${kind}, seed ${seed}`).toContain(id);
      }
  });

  it("answers for an id of the set and refuses one outside it", () => {
    const world = worldOf(spec, "get_plan");
    const ids = recordsOf(world, "plans").map((r) => r.plan_id as string);
    for (const id of ids) {
      const answer = world.call("get_plan", { plan_id: id });
      expect(answer.ok, answer.content).toBe(true);
      expect(json(answer.content).plan_id).toBe(id);
    }
    for (const id of ["PLAN_Z", "PLAN_a", "PLA_0001"]) {
      const answer = world.call("get_plan", { plan_id: id });
      expect(answer.ok, id).toBe(false);
      expect(answer.error).toMatch(/^(invalid_arguments|not_found)$/);
      expect(answer.content).toContain("plan_id");
    }
  });
});

describe("a verify tool checks the person's details against their record", () => {
  const spec = specOf(
    fn("verify_identity", "Check the customer's details against the account", {
      account_id: { type: "string" },
      date_of_birth: { type: "string" },
      zip: { type: "string" },
    }),
  );

  it("verifies the person's own details, and names the field that does not match", () => {
    for (const seed of SEEDS) {
      const world = worldOf(spec, "verify_identity", seed);
      const { ids, details } = world.person;
      expect(ids.account_id).toBeDefined();
      expect(details.date_of_birth).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const own = {
        account_id: ids.account_id,
        date_of_birth: details.date_of_birth,
        zip: details.zip,
      };
      const right = world.call("verify_identity", own);
      expect(right.ok, right.content).toBe(true);
      expect(json(right.content)).toMatchObject({
        verified: true,
        matched: expect.arrayContaining(["date_of_birth", "zip"]),
        did_not_match: [],
      });

      const wrongZip = `${details.zip}`.replace(/\d/g, (d) => String((Number(d) + 1) % 10));
      const zip = json(world.call("verify_identity", { ...own, zip: wrongZip }).content);
      expect(zip).toMatchObject({ verified: false, matched: ["date_of_birth"] });
      expect(zip.did_not_match).toEqual(["zip"]);

      const dob = json(
        world.call("verify_identity", { ...own, date_of_birth: "1901-01-01" }).content,
      );
      expect(dob).toMatchObject({ verified: false, did_not_match: ["date_of_birth"] });
      // What was checked is said; the stored values are not.
      expect(JSON.stringify(dob)).not.toContain(details.date_of_birth);
    }
  });
});

describe("preconditions read from a tool's name and description", () => {
  const spec = specOf(
    fn("get_order", "Get an order: items, total and status.", { order_id: { type: "string" } }),
    fn("modify_pending_order_address", "Modify the address of a pending order", {
      order_id: { type: "string" },
      address: { type: "string" },
    }),
  );
  const address = "12 Elm Street, Springfield 62701";

  it("refuses an order that is not pending with invalid_state naming its status, and changes a pending one", () => {
    let refused = 0;
    let changed = 0;
    for (const seed of SEEDS) {
      const world = worldOf(spec, "modify_pending_order_address", seed);
      for (const order of recordsOf(world, "orders")) {
        const status = order.status as string;
        const answer = world.call("modify_pending_order_address", {
          order_id: order.order_id,
          address,
        });
        if (status === "pending") {
          changed++;
          expect(answer.ok, answer.content).toBe(true);
          const read = json(world.call("get_order", { order_id: order.order_id }).content);
          expect(read.status).toBe("pending");
        } else {
          refused++;
          expect(answer.ok, `${status}: ${answer.content}`).toBe(false);
          expect(answer.error).toBe("invalid_state");
          const refusal = json(answer.content);
          expect(refusal.status).toBe(status);
          expect(refusal.message).toContain(status);
          // Nothing was written.
          const after = recordsOf(world, "orders").find((r) => r.order_id === order.order_id);
          expect(after).toEqual(order);
        }
      }
    }
    // The seeds give orders of both kinds, so both branches were tried.
    expect(refused).toBeGreaterThan(0);
    expect(changed).toBeGreaterThan(0);
  });

  it("in a normal world, the person's order for this tool is pending and the change goes through", () => {
    for (const seed of SEEDS) {
      const world = worldOf(spec, "modify_pending_order_address", seed);
      const answer = world.call("modify_pending_order_address", {
        order_id: world.person.ids.order_id,
        address,
      });
      expect(answer.ok, answer.content).toBe(true);
    }
  });
});

describe("amounts add up", () => {
  /** Sum of price × quantity of an order's items, in cents. */
  const cents = (items: unknown) =>
    (items as { price: number; quantity?: number }[]).reduce(
      (sum, item) => sum + Math.round(item.price * 100) * (item.quantity ?? 1),
      0,
    );

  function expectTotalsAddUp(spec: AgentSpec): void {
    for (const seed of SEEDS) {
      const world = worldOf(spec, "get_order", seed);
      const orders = recordsOf(world, "orders");
      expect(orders.length).toBeGreaterThan(0);
      for (const order of orders) {
        const answer = json(world.call("get_order", { order_id: order.order_id }).content);
        const items = answer.items as { price: number; quantity: number }[];
        expect(items.length, `${order.order_id}`).toBeGreaterThan(0);
        for (const item of items) {
          expect(typeof item.price).toBe("number");
          expect(typeof item.quantity).toBe("number");
        }
        expect(typeof answer.total).toBe("number");
        expect(Math.round((answer.total as number) * 100), `${order.order_id}`).toBe(cents(items));
      }
    }
  }

  it("an order's total is the sum of its items (items are records of their own)", () => {
    expectTotalsAddUp(
      specOf(
        fn(
          "get_order",
          "Get an order: items (with item id, name, price and quantity), total and status.",
          { order_id: { type: "string" } },
        ),
        fn("return_order_items", "Return items of a delivered order.", {
          order_id: { type: "string" },
          item_ids: { type: "array", items: { type: "string" } },
        }),
      ),
    );
  });

  it("an order's total is the sum of its items (items listed in the order)", () => {
    expectTotalsAddUp(
      specOf(
        fn("get_order", "Get an order: items (with name, price and quantity), total and status.", {
          order_id: { type: "string" },
        }),
      ),
    );
  });
});

describe("dates are plausible", () => {
  const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{3})?Z)?$/;
  const DATE_FIELD = /(^|_)(date|at|check_in|check_out)$|^(start|end|date)$/;
  /** Pairs whose second date may not come before the first. */
  const PAIRS: [string, string][] = [
    ["check_in", "check_out"],
    ["check_in_date", "check_out_date"],
    ["start_date", "end_date"],
    ["created_at", "updated_at"],
  ];

  const spec = specOf(
    {
      name: "get_reservation",
      description: "Get a hotel reservation.",
      inputSchema: {
        type: "object",
        properties: { reservation_id: { type: "string" } },
        required: ["reservation_id"],
      },
      outputSchema: {
        type: "object",
        properties: {
          reservation_id: { type: "string" },
          check_in: { type: "string", format: "date" },
          check_out: { type: "string", format: "date" },
          room_type: { type: "string" },
          status: { type: "string" },
        },
      },
    },
    fn("get_subscription", "Returns the subscription: plan, start date, end date and status.", {
      subscription_id: { type: "string" },
    }),
    fn("get_stay", "Get a stay: check-in date, check-out date, guests and room.", {
      stay_id: { type: "string" },
    }),
    fn("update_stay_room", "Move a stay to another room.", {
      stay_id: { type: "string" },
      room: { type: "string" },
    }),
  );

  it("dates are ISO, and a pair's second date is not before its first", () => {
    const seen = new Set<string>();
    for (const seed of SEEDS)
      for (const tool of ["get_reservation", "get_subscription", "get_stay"]) {
        const world = worldOf(spec, tool, seed);
        // A write stamps its record; the stamp must still come after the creation.
        for (const stay of recordsOf(world, "stays").slice(0, 2)) {
          const moved = world.call("update_stay_room", { stay_id: stay.stay_id, room: "Room 12" });
          expect(moved.ok, moved.content).toBe(true);
        }
        for (const [collection, records] of Object.entries(world.snapshot().collections))
          for (const record of records) {
            for (const [field, value] of Object.entries(record)) {
              if (!DATE_FIELD.test(field)) continue;
              seen.add(field);
              const where = `${collection}.${field} = ${JSON.stringify(value)}`;
              expect(typeof value, where).toBe("string");
              expect(value, where).toMatch(ISO);
              // A real day of the calendar, not 2026-02-30.
              expect(new Date(value as string).toISOString().slice(0, 10), where).toBe(
                (value as string).slice(0, 10),
              );
            }
            for (const [first, second] of PAIRS) {
              const [a, b] = [record[first], record[second]];
              if (typeof a !== "string" || typeof b !== "string") continue;
              seen.add(`${first}/${second}`);
              expect(b >= a, `${collection}: ${first} ${a}, ${second} ${b}`).toBe(true);
            }
          }
      }
    // The spec's pairs were all made, so each was checked.
    for (const pair of PAIRS) expect(seen, pair.join("/")).toContain(pair.join("/"));
  });
});

describe("a person with no id for their record describes it by what the agent's list shows", () => {
  it("tells two alike invoices from another of their day by a status, or that one is of another day", async () => {
    const saas = await Agent.load("test/fixtures/specs/saas-admin.json");
    let sameDay = 0;
    for (let seed = 0; seed < 400; seed++) {
      const w = createWorld({
        spec: saas,
        situation: situationOf(saas, { tool: "get_invoice", world: "duplicate_records" }, seed),
      });
      const { duplicates } = w.state.shaped as { duplicates: string[] };
      const twin = w.store.get("invoice", duplicates[0] as string) as WorldRecord;
      // list_invoices shows numbers, days and statuses, not names: another of the day is told by its status.
      const others = [...w.store.all("invoice")].filter(
        (i) =>
          !duplicates.includes(String(i.invoice_number)) &&
          i.workspace_id === twin.workspace_id &&
          i.date === twin.date,
      );
      for (const other of others) {
        expect(other.status, `seed ${seed}`).not.toBe(twin.status);
        expect(w.person.about, `seed ${seed}`).toContain(
          `, ${String(twin.status).replace(/_/g, " ")})`,
        );
        sameDay++;
      }
    }
    expect(sameDay).toBeGreaterThan(2);
  });
});
