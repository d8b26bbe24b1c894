import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { openingRequest } from "../../../env/people/goal.ts";
import { createWorld } from "../../../env/world/index.ts";
import { WorldModel } from "../../../env/world/model.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { mcpTool } from "../../support/specs.ts";

/** Workspaces of a user: their invoices, listed since a day, and users removed from them. */
const SPEC = {
  name: "tool meaning",
  system_prompt: "You help admins with their workspaces.",
  policy: [],
  tools: [
    mcpTool("get_workspace", "Get a workspace: name, plan and seats.", {
      workspace_id: { type: "string" },
    }),
    mcpTool("remove_user", "Remove a user from the workspace and free their seat.", {
      workspace_id: { type: "string" },
      user_id: { type: "string" },
    }),
    mcpTool(
      "list_invoices",
      "List invoices for the workspace, newest first: invoice number, date, amount.",
      {
        workspace_id: { type: "string" },
        since: {
          type: "string",
          format: "date",
          description: "Only invoices on or after this day.",
        },
      },
      ["workspace_id"],
    ),
    mcpTool(
      "request_upload_link",
      "Create a link for the admin to upload documents of the given types.",
      {
        workspace_id: { type: "string" },
        document_types: {
          type: "array",
          items: { type: "string", enum: ["invoice", "contract", "receipt"] },
        },
      },
    ),
  ],
};

describe("what a tool does, read from its name and its arguments", () => {
  const agent = Agent.from(SPEC);

  it("removing a user from a workspace leaves the workspace", () => {
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "remove_user" }),
    });
    const workspace = world.person.ids.workspace_id as string;
    const user = world.person.ids.user_id as string;
    expect(world.call("remove_user", { workspace_id: workspace, user_id: user }).ok).toBe(true);
    expect(world.call("get_workspace", { workspace_id: workspace }).ok).toBe(true);
  });

  it("a change named for the person changes that person's record, not the workspace holding it", () => {
    const roles = Agent.from({
      ...SPEC,
      tools: [
        ...SPEC.tools,
        mcpTool(
          "list_users",
          "List users in a workspace: id, name, email and role (owner, admin, member, guest).",
          { workspace_id: { type: "string" } },
        ),
        mcpTool(
          "change_user_role",
          "Change a user's role.",
          {
            workspace_id: { type: "string" },
            user_id: { type: "string" },
            new_role: { type: "string", enum: ["owner", "admin", "member", "guest"] },
            requested_by_user_id: { type: "string" },
          },
          ["workspace_id", "user_id", "new_role"],
        ),
      ],
    });
    const tool = WorldModel.of(roles).tools.get("change_user_role");
    expect([tool?.kind, tool?.entity, tool?.idParam]).toEqual(["change", "user", "user_id"]);
    const world = createWorld({
      spec: roles,
      situation: situationOf(roles, { tool: "change_user_role" }),
    });
    const workspace = world.person.ids.workspace_id as string;
    const user = world.person.ids.user_id as string;
    const before = world.call("get_workspace", { workspace_id: workspace }).content;
    const changed = world.call("change_user_role", {
      workspace_id: workspace,
      user_id: user,
      new_role: "guest",
    });
    expect(JSON.parse(changed.content)).toMatchObject({ user_id: user, role: "guest" });
    expect(world.call("get_workspace", { workspace_id: workspace }).content).toBe(before);
    const listed = JSON.parse(world.call("list_users", { workspace_id: workspace }).content);
    expect(listed.users.find((u: { user_id: string }) => u.user_id === user)?.role).toBe("guest");
    // The user changed is a colleague of the person asking, who names themselves as the requester.
    const me = world.person.ids.requested_by_user_id as string;
    expect(user).not.toBe(me);
    const asked = openingRequest(world, {
      tool: "change_user_role",
      arguments: { workspace_id: workspace, user_id: user, requested_by_user_id: me },
      text: "",
    }).replace(/[\uE000\uE001]/g, "");
    expect(asked).toBe(
      `change the role of the user ${user} for my workspace ${workspace}, with requested by user id ${me}`,
    );
  });

  it("a list of an enum's choices is kept as a set: named in any order, the same record", () => {
    const made = (types: string[]) => {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "request_upload_link" }),
      });
      const workspace = world.person.ids.workspace_id as string;
      const answer = world.call("request_upload_link", {
        workspace_id: workspace,
        document_types: types,
      });
      expect(answer.ok).toBe(true);
      return JSON.parse(answer.content);
    };
    const one = made(["receipt", "invoice"]);
    expect(one.document_types).toEqual(["invoice", "receipt"]);
    expect(made(["invoice", "receipt"])).toEqual(one);
  });

  it("`since` bounds the records' date instead of matching a field of that name", () => {
    for (let seed = 0; seed < 5; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "list_invoices" }),
        seed,
      });
      const workspace = world.person.ids.workspace_id as string;
      const list = (since?: string) =>
        JSON.parse(
          world.call("list_invoices", { workspace_id: workspace, ...(since ? { since } : {}) })
            .content,
        ).invoices as { date: string }[];
      const all = list();
      expect(all.length).toBeGreaterThan(0);
      expect(list("2000-01-01")).toEqual(all);
      expect(list("2100-01-01")).toEqual([]);
      const middle = [...all.map((i) => i.date)].sort()[Math.floor(all.length / 2)] as string;
      expect(list(middle)).toEqual(all.filter((i) => i.date >= middle));
    }
  });

  it("a description's creation date is the day the record was made, not a second date", () => {
    const dated = Agent.from({
      ...SPEC,
      tools: [
        mcpTool(
          "get_workspace",
          "Get workspace details: name, creation date, plan and renewal date.",
          {
            workspace_id: { type: "string" },
          },
        ),
      ],
    });
    for (let seed = 0; seed < 5; seed++) {
      const world = createWorld({
        spec: dated,
        situation: situationOf(dated, { tool: "get_workspace" }),
        seed,
      });
      const workspace = world.person.ids.workspace_id as string;
      const shown = JSON.parse(world.call("get_workspace", { workspace_id: workspace }).content);
      expect(shown.creation_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const stored = world
        .snapshot()
        .collections.workspaces?.find((w: Record<string, unknown>) => w.workspace_id === workspace);
      expect(String(stored?.created_at).slice(0, 10)).toBe(shown.creation_date);
    }
  });

  it("a read named for one thing a record holds answers that thing, not the whole record", () => {
    const named = Agent.from({
      ...SPEC,
      tools: [
        mcpTool("get_patient_profile", "Get a patient's profile.", {
          patient_id: { type: "string" },
        }),
        mcpTool("estimate_copay", "Estimate the out-of-pocket cost of the next fill.", {
          patient_id: { type: "string" },
        }),
        mcpTool("get_store_hours", "Opening hours of a store.", { store_id: { type: "string" } }),
        mcpTool("get_order_status", "Where an order is.", { order_id: { type: "string" } }),
      ],
    });
    const world = createWorld({
      spec: named,
      situation: situationOf(named, { tool: "estimate_copay" }),
    });
    const patient = world.person.ids.patient_id as string;
    const estimate = JSON.parse(world.call("estimate_copay", { patient_id: patient }).content);
    expect(Object.keys(estimate).sort()).toEqual(["estimated_copay", "patient_id"]);
    expect(estimate.estimated_copay).toEqual(expect.any(Number));
    const store = world.snapshot().collections.stores?.[0]?.store_id as string;
    const hours = JSON.parse(world.call("get_store_hours", { store_id: store }).content);
    expect(hours.hours).toMatch(/^Mon–Fri \d{2}:\d{2}–\d{2}:\d{2}/);
    // A status read is of the record itself: it shows what the record holds, its status among it.
    const order = world.snapshot().collections.orders?.[0]?.order_id as string;
    const status = JSON.parse(world.call("get_order_status", { order_id: order }).content);
    expect(status.status).toEqual(expect.any(String));
    expect(Object.keys(status).length).toBeGreaterThan(2);
  });

  it("a check of a detail shows no such detail, and a write's own creation date stands", () => {
    const checked = Agent.from({
      ...SPEC,
      tools: [
        mcpTool("get_account", "Get an account.", { account_id: { type: "string" } }),
        mcpTool("verify_account_pin", "Check the last four digits of the account PIN.", {
          account_id: { type: "string" },
          pin_last_four: { type: "string" },
        }),
        mcpTool(
          "create_project",
          "Create a project: name, creation date and last update date.",
          {
            account_id: { type: "string" },
            name: { type: "string" },
            creation_date: { type: "string", format: "date" },
          },
          ["account_id", "name"],
        ),
        mcpTool("get_project", "Get a project: name, created on and updated on.", {
          project_id: { type: "string" },
        }),
      ],
    });
    const model = WorldModel.of(checked);
    expect(model.tools.get("verify_account_pin")?.view).toBeNull();
    const world = createWorld({
      spec: checked,
      situation: situationOf(checked, { tool: "create_project" }),
    });
    const account = world.person.ids.account_id as string;
    const made = JSON.parse(
      world.call("create_project", {
        account_id: account,
        name: "Atlas",
        creation_date: "2025-01-15",
      }).content,
    );
    expect(made.creation_date).toBe("2025-01-15");
    for (let seed = 0; seed < 20; seed++) {
      const seeded = createWorld({
        spec: checked,
        situation: situationOf(checked, { tool: "get_project" }),
        seed,
      });
      for (const project of seeded.snapshot().collections.projects ?? []) {
        expect(String(project.created_on)).toBe(String(project.created_at).slice(0, 10));
        if (typeof project.updated_on === "string")
          expect(project.updated_on >= (project.created_on as string)).toBe(true);
      }
    }
  });
});

describe("what a verification checks", () => {
  const PINS = Agent.from({
    ...SPEC,
    tools: [
      mcpTool("get_account", "Get an account.", { account_id: { type: "string" } }),
      mcpTool("verify_account_pin", "Check the last four digits of the account PIN.", {
        account_id: { type: "string" },
        pin_last_four: { type: "string", pattern: "^\\d{4}$" },
      }),
    ],
  });

  it("is the same on all of a person's accounts, and shown by no answer that does not ask for it", () => {
    for (let seed = 0; seed < 10; seed++) {
      const world = createWorld({
        spec: PINS,
        situation: situationOf(PINS, { tool: "verify_account_pin" }),
        seed,
      });
      const { collections } = world.snapshot();
      const person = collections.customers?.[0]?.customer_id;
      const owned = (collections.accounts ?? []).filter((a) => a.customer_id === person);
      expect(owned.length).toBeGreaterThan(1);
      const pin = world.person.details.pin_last_four as string;
      expect(pin).toMatch(/^\d{4}$/);
      for (const account of owned) {
        const id = account.account_id as string;
        const checked = JSON.parse(
          world.call("verify_account_pin", { account_id: id, pin_last_four: pin }).content,
        );
        expect(checked.verified).toBe(true);
        const shown = world.call("get_account", { account_id: id }).content;
        expect(shown).not.toContain("pin_last_four");
      }
    }
  });
});

describe("a change that gives a field's next value", () => {
  const STAYS = {
    name: "stays",
    system_prompt: "You help guests with their bookings.",
    policy: [],
    tools: [
      mcpTool("get_booking", "Get a booking.", { booking_id: { type: "string" } }, undefined, {
        booking_id: { type: "string" },
        check_in: { type: "string", format: "date" },
        check_out: { type: "string", format: "date" },
        start_date: { type: "string", format: "date" },
        end_date: { type: "string", format: "date" },
        total: { type: "number" },
        status: { type: "string", enum: ["confirmed", "cancelled"] },
      }),
      mcpTool("change_booking_dates", "Move a booking to new dates.", {
        booking_id: { type: "string" },
        new_check_in: { type: "string", format: "date" },
        nights: { type: "integer", minimum: 1 },
      }),
      mcpTool("reschedule_booking", "Move the start of a booking's tour.", {
        booking_id: { type: "string" },
        new_start_date: { type: "string", format: "date" },
      }),
    ],
  };
  const agent = Agent.from(STAYS);
  const DAY = 86_400_000;
  const days = (from: unknown, to: unknown) =>
    (Date.parse(String(to)) - Date.parse(String(from))) / DAY;

  it("sets that field, and the end of its span moves by the length given or with the start", () => {
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "change_booking_dates" }),
    });
    const booking_id = world.person.ids.booking_id as string;
    const before = JSON.parse(world.call("get_booking", { booking_id }).content);
    const moved = world.call("change_booking_dates", {
      booking_id,
      new_check_in: "2026-09-10",
      nights: 4,
    });
    expect(moved.ok).toBe(true);
    const after = JSON.parse(world.call("get_booking", { booking_id }).content);
    expect(after).toMatchObject({ check_in: "2026-09-10", check_out: "2026-09-14" });
    expect(after).not.toHaveProperty("new_check_in");
    // A stay made longer or shorter costs in proportion to its nights.
    const nights = days(before.check_in, before.check_out);
    expect(after.total).toBeCloseTo((before.total * 4) / nights, 1);

    expect(world.call("reschedule_booking", { booking_id, new_start_date: "2026-10-01" }).ok).toBe(
      true,
    );
    const tour = JSON.parse(world.call("get_booking", { booking_id }).content);
    expect(tour.start_date).toBe("2026-10-01");
    expect(days(tour.start_date, tour.end_date)).toBe(days(before.start_date, before.end_date));
    // Moved whole, it costs the same.
    expect(tour.total).toBe(after.total);
  });

  it("is kept beside the field when another argument of the tool sets that field itself", () => {
    const model = WorldModel.of(
      Agent.from({
        ...STAYS,
        tools: [
          ...STAYS.tools,
          mcpTool("swap_booking_rooms", "Swap rooms on a booking.", {
            booking_id: { type: "string" },
            room: { type: "string" },
            new_room: { type: "string" },
          }),
        ],
      }),
    );
    const swap = model.tools.get("swap_booking_rooms");
    expect(swap?.sets.get("new_room")).toBe("new_room");
    expect(model.tools.get("change_booking_dates")?.sets.get("new_check_in")).toBe("check_in");
  });
});

describe("an address given in parts", () => {
  const agent = Agent.from({
    name: "address parts",
    system_prompt: "You help shoppers with their orders.",
    policy: [],
    tools: [
      mcpTool("get_order_details", "Get an order: items, status and shipping address.", {
        order_id: { type: "string" },
      }),
      mcpTool(
        "modify_pending_order_address",
        "Change the shipping address of a pending order.",
        {
          order_id: { type: "string" },
          address1: { type: "string" },
          address2: { type: "string" },
          city: { type: "string" },
          state: { type: "string" },
          country: { type: "string" },
          zip: { type: "string" },
        },
        ["order_id", "address1", "city", "state", "country", "zip"],
      ),
    ],
  });

  it("is written as the record's one address, which a later read shows", () => {
    const tool = WorldModel.of(agent).tools.get("modify_pending_order_address");
    expect(tool?.composes?.field).toBe("shipping_address");
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "modify_pending_order_address" }),
    });
    const order = world.person.ids.order_id as string;
    const changed = world.call("modify_pending_order_address", {
      order_id: order,
      address1: "228 Saffron Street",
      city: "Seattle",
      state: "WA",
      country: "US",
      zip: "98101",
    });
    expect(changed.ok).toBe(true);
    const read = JSON.parse(world.call("get_order_details", { order_id: order }).content);
    expect(read.shipping_address).toBe("228 Saffron Street, Seattle, WA, US, 98101");
    expect(read.address1).toBeUndefined();
  });
});

describe("a change that adds to a count or turns a yes-or-no on", () => {
  const agent = Agent.from({
    name: "bags and insurance",
    system_prompt: "You help travellers with their reservations.",
    policy: [],
    tools: [
      mcpTool(
        "get_reservation_details",
        "Get a reservation: cabin, checked bags and travel insurance.",
        { reservation_id: { type: "string" } },
      ),
      mcpTool("add_checked_bags", "Add checked bags to a reservation.", {
        reservation_id: { type: "string" },
        additional_bags: {
          type: "integer",
          minimum: 1,
          description: "Bags to add to the current total.",
        },
      }),
      mcpTool("travel_insurance_add", "Add travel insurance to a reservation.", {
        reservation_id: { type: "string" },
      }),
    ],
  });

  it("adds `additional_bags` to the bags the record holds, and makes `travel_insurance` true", () => {
    const model = WorldModel.of(agent);
    expect(model.tools.get("add_checked_bags")?.sets.get("additional_bags")).toBe("checked_bags");
    expect(model.tools.get("travel_insurance_add")?.toggles).toEqual({
      field: "travel_insurance",
      on: true,
    });
    for (let seed = 0; seed < 3; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "add_checked_bags" }),
        seed,
      });
      const reservation = world.person.ids.reservation_id as string;
      const read = () =>
        JSON.parse(world.call("get_reservation_details", { reservation_id: reservation }).content);
      const before = read().checked_bags as number;
      expect(before).toEqual(expect.any(Number));
      world.call("add_checked_bags", { reservation_id: reservation, additional_bags: 2 });
      expect(read().checked_bags).toBe(before + 2);
      world.call("travel_insurance_add", { reservation_id: reservation });
      expect(read().travel_insurance).toBe(true);
    }
  });
});

describe("a change named for the record it points to", () => {
  const agent = Agent.from({
    name: "tariffs",
    system_prompt: "You help customers with their energy accounts.",
    policy: [],
    tools: [
      mcpTool(
        "get_account",
        "Get an account.",
        { account_number: { type: "string" } },
        ["account_number"],
        {
          account_number: { type: "string" },
          tariff: {
            type: "object",
            properties: { code: { type: "string" }, name: { type: "string" } },
          },
        },
      ),
      mcpTool("list_tariffs", "List the tariffs on offer.", {}, []),
      mcpTool("switch_tariff", "Move an account to another tariff.", {
        account_number: { type: "string" },
        tariff_code: { type: "string" },
      }),
    ],
  });

  it("makes the target's field of that name the chosen record, its code and its name", () => {
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "switch_tariff" }),
    });
    const account = world.person.ids.account_number as string;
    const tariffs = JSON.parse(world.call("list_tariffs", {}).content).tariffs as Record<
      string,
      unknown
    >[];
    const chosen = tariffs.at(-1) as Record<string, unknown>;
    const before = JSON.parse(world.call("get_account", { account_number: account }).content);
    expect(before.tariff.code).not.toBe(chosen.tariff_code);
    expect(
      world.call("switch_tariff", { account_number: account, tariff_code: chosen.tariff_code }).ok,
    ).toBe(true);
    const after = JSON.parse(world.call("get_account", { account_number: account }).content);
    expect(after.tariff).toEqual({ code: chosen.tariff_code, name: chosen.name });
  });
});

describe("a change named for a part of its record", () => {
  it("writes a detail that part holds in the part (`update_direct_debit`'s `collection_day`)", () => {
    const agent = Agent.from({
      name: "direct debits",
      system_prompt: "You help customers with their energy accounts.",
      policy: [],
      tools: [
        mcpTool(
          "get_account",
          "Get an account.",
          { account_number: { type: "string" } },
          ["account_number"],
          {
            account_number: { type: "string" },
            direct_debit: {
              type: "object",
              properties: {
                monthly_amount_gbp: { type: "number" },
                collection_day: { type: "integer" },
              },
            },
          },
        ),
        mcpTool(
          "update_direct_debit",
          "Change the collection day or the monthly amount of an account's direct debit.",
          {
            account_number: { type: "string" },
            collection_day: { type: "integer" },
            monthly_amount: { type: "number" },
          },
          ["account_number"],
        ),
      ],
    });
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "update_direct_debit" }),
    });
    const account = world.person.ids.account_number as string;
    const before = JSON.parse(world.call("get_account", { account_number: account }).content);
    const day = before.direct_debit.collection_day === 27 ? 26 : 27;
    world.call("update_direct_debit", { account_number: account, collection_day: day });
    const after = JSON.parse(world.call("get_account", { account_number: account }).content);
    expect(after.direct_debit).toEqual({ ...before.direct_debit, collection_day: day });
    expect(after.collection_day).toBeUndefined();
    // The part names the amount with its currency: `monthly_amount` is its `monthly_amount_gbp`.
    world.call("update_direct_debit", { account_number: account, monthly_amount: 61.5 });
    const paid = JSON.parse(world.call("get_account", { account_number: account }).content);
    expect(paid.direct_debit).toEqual({ ...after.direct_debit, monthly_amount_gbp: 61.5 });
    expect(paid.monthly_amount).toBeUndefined();
    expect(paid.update_amount).toBeUndefined();
  });
});
