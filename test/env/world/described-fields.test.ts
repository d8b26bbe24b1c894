import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { Rng } from "../../../env/rng.ts";
import { WORLD_TODAY } from "../../../env/world/dates.ts";
import { exampleCode } from "../../../env/world/examples.ts";
import { createWorld } from "../../../env/world/index.ts";
import { WorldModel } from "../../../env/world/model.ts";
import { placeholderReason } from "../../../env/world/placeholders.ts";
import { valueFor } from "../../../env/world/values.ts";
import { COUNTRY_CODES } from "../../../env/world/vocabulary.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { mcpTool } from "../../support/specs.ts";

/** Accounts of a customer, whose fields come only from the tools' descriptions. */
const SPEC = {
  name: "described fields",
  system_prompt: "You help customers with their accounts.",
  policy: [],
  tools: [
    mcpTool("find_customer_by_email", "Find a customer's id by their email.", {
      email: { type: "string" },
    }),
    mcpTool(
      "get_account",
      "Get an account. Returns plan, billing cycle, membership tier, checked bags, seats left, number of nights, vat and the holder name masked, if any.",
      { account_id: { type: "string" } },
    ),
    mcpTool(
      "check_code",
      "Check a code sent to the customer. Returns verified true/false and, on success, a verification_id valid for 15 minutes.",
      { account_id: { type: "string" }, code: { type: "string" } },
    ),
    mcpTool(
      "get_account_status",
      "Get the status of an account. Statuses: 'open', 'in_review', 'closed'.",
      { account_id: { type: "string" } },
    ),
    mcpTool("change_plan", "Move an account to another plan.", {
      account_id: { type: "string" },
      plan: { type: "string", enum: ["free", "team", "business"] },
    }),
    mcpTool("request_invoice", "Ask for an invoice of an account for a billing cycle.", {
      account_id: { type: "string" },
      billing_cycle: { type: "string", enum: ["monthly", "annual"] },
    }),
    mcpTool("add_bags", "Add checked bags to an account.", {
      account_id: { type: "string" },
      additional_bags: { type: "integer", minimum: 1, maximum: 10 },
    }),
  ],
};

/** Rooms listed inside an availability answer, whose type only a booking tool's enum names. */
const ROOMS = {
  name: "nested closed sets",
  system_prompt: "You help guests book rooms.",
  policy: [],
  tools: [
    mcpTool(
      "get_availability",
      "Get the availability of a property.",
      { property_id: { type: "string" } },
      ["property_id"],
      {
        rooms: {
          type: "array",
          items: { type: "object", properties: { room_type: { type: "string" } } },
        },
      },
    ),
    mcpTool("book_room", "Book a room.", {
      property_id: { type: "string" },
      room_type: { type: "string", enum: ["king", "twin", "suite"] },
    }),
  ],
};

describe("fields read from a tool's description", () => {
  const agent = Agent.from(SPEC);
  const model = WorldModel.of(agent);

  it("leave out what only qualifies the list, keep a field named as written, and read a said type", () => {
    expect(model.tools.get("get_account")?.view).toEqual([
      "plan",
      "billing_cycle",
      "membership_tier",
      "checked_bags",
      "seats_left",
      "number_of_nights",
      "vat",
      "holder_name_masked",
    ]);
    expect(model.tools.get("check_code")?.view).toEqual(["verified", "verification_id"]);
    expect(model.entities.get("account")?.fields.get("verified")).toEqual({ type: "boolean" });
    // A list of quoted values names statuses, not fields.
    expect(model.tools.get("get_account_status")?.view).toBeNull();
  });

  it("get values of their kind: counts, tiers, money, a masked name of the owner's, a parameter's closed set", () => {
    for (let seed = 0; seed < 8; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "get_account" }),
        seed,
      });
      const [first] = world.person.name.split(" ");
      for (const account of world.snapshot().collections.accounts ?? []) {
        const owner = (world.snapshot().collections.customers ?? []).find(
          (c) => c.customer_id === account.customer_id,
        );
        expect(["standard", "silver", "gold", "platinum"]).toContain(account.membership_tier);
        // Known only by name, `plan` takes the closed set the tool that changes it accepts.
        expect(["free", "team", "business"]).toContain(account.plan);
        // …and from a tool on another record, when none of its own names it.
        expect(["monthly", "annual"]).toContain(account.billing_cycle);
        expect(account.checked_bags).toBeOneOf([0, 1, 2]);
        expect(account.seats_left).toBeGreaterThanOrEqual(1);
        expect(account.number_of_nights).toBeGreaterThanOrEqual(1);
        expect(typeof account.vat).toBe("number");
        const name = String(owner?.name);
        expect(account.holder_name_masked).toBe(
          name.replace(
            /(\p{L})(\p{L}+)/gu,
            (_, a: string, rest: string) => a + "*".repeat(rest.length),
          ),
        );
        if (account.customer_id === world.person.ids.customer_id)
          expect(String(account.holder_name_masked).startsWith(first?.[0] ?? "?")).toBe(true);
      }
    }
  });

  it("inside a list of objects, take a parameter's closed set too, and leave the spec's schema as it was", () => {
    const rooms = Agent.from(ROOMS);
    const before = JSON.stringify(rooms.spec);
    let seen = 0;
    for (let seed = 0; seed < 4; seed++) {
      const world = createWorld({
        spec: rooms,
        situation: situationOf(rooms, { tool: "get_availability" }),
        seed,
      });
      const collections = Object.values(world.snapshot().collections).flat();
      for (const record of collections)
        for (const room of (record.rooms ?? []) as { room_type: string }[]) {
          expect(["king", "twin", "suite"]).toContain(room.room_type);
          seen++;
        }
    }
    expect(seen).toBeGreaterThan(0);
    expect(JSON.stringify(rooms.spec)).toBe(before);
  });

  it("keep a value a name suggests within the schema's bounds", () => {
    const rng = new Rng(1, "bounds");
    const ctx = { rng, entity: "account", isPerson: false, currency: "USD" };
    const drawn = Array.from({ length: 200 }, () =>
      valueFor("additional_bags", { type: "integer", minimum: 1, maximum: 2 }, ctx),
    );
    expect(new Set(drawn)).toEqual(new Set([1, 2]));
    const fees = Array.from({ length: 200 }, () =>
      valueFor("late_fee", { type: "number", exclusiveMinimum: 500 }, ctx),
    );
    expect(fees.every((fee) => typeof fee === "number" && fee > 500)).toBe(true);
  });

  it("tell a history in the order it happened", () => {
    for (const [field, entity] of [
      ["payment_history", "order"],
      ["fill_history", "prescription"],
    ] as const)
      for (let seed = 0; seed < 40; seed++) {
        const ctx = { rng: new Rng(seed, "history"), entity, isPerson: false, currency: "USD" };
        const dates = (valueFor(field, undefined, ctx) as { date: string }[]).map((e) => e.date);
        expect(dates, `${field} seed ${seed}`).toEqual([...dates].sort());
      }
  });

  it("get values of the kind their name says, never a filler code, and a list said as one string where the schema takes a string", () => {
    const FILLER = /^[A-Z][a-z]+-\d{3}$/;
    const ctx = (entity: string) => ({
      rng: new Rng(3, "kinds", entity),
      entity,
      isPerson: false,
      currency: "USD",
    });
    const expected: [string, string, (value: unknown) => boolean][] = [
      ["sso_scim_status", "workspace", (v) => v === "enabled" || v === "disabled"],
      ["autopay_status", "account", (v) => v === "enabled" || v === "disabled"],
      // A loyalty balance is points by the hundred, up to tens of thousands.
      [
        "points_balance",
        "loyalty_account",
        (v) => Number.isInteger(v) && (v as number) % 100 === 0,
      ],
      [
        "verified_domains",
        "workspace",
        (v) => Array.isArray(v) && v.every((d) => /^[a-z-]+\.[a-z]+$/.test(d)),
      ],
      [
        "owner_list",
        "workspace",
        (v) => Array.isArray(v) && v.every((n) => /^[A-Z][a-z]+ [A-Z]/.test(n)),
      ],
      ["authorized_caregivers", "patient", (v) => Array.isArray(v) && v.length > 0],
      ["allergy_flags", "patient", (v) => Array.isArray(v)],
      [
        "payment_history",
        "order",
        (v) =>
          Array.isArray(v) &&
          v.every((p) => typeof p.amount === "number") &&
          v.every((p, i) => i === 0 || v[i - 1].date <= p.date),
      ],
      [
        "fill_history",
        "prescription",
        (v) =>
          Array.isArray(v) &&
          v.every((f) => [30, 60, 90].includes(f.days_supply)) &&
          v.every((f, i) => i === 0 || v[i - 1].date <= f.date),
      ],
      [
        "payment_methods",
        "account",
        (v) => Array.isArray(v) && v.every((c) => / ending \d{4}$/.test(c)),
      ],
      ["directions", "prescription", (v) => typeof v === "string" && /^(Take|Apply) /.test(v)],
      ["closing_balance", "bill", (v) => typeof v === "number"],
      ["seat_usage", "workspace", (v) => typeof v === "string" && /^\d+ of \d+ used$/.test(v)],
      ["paid_seats", "subscription", (v) => Number.isInteger(v) && (v as number) >= 1],
      ["licenses", "plan", (v) => Number.isInteger(v) && (v as number) >= 1],
      ["usage", "line", (v) => typeof v === "string" && /GB of data/.test(v)],
      ["hours", "store", (v) => typeof v === "string" && /^Mon–Fri /.test(v)],
      ["check_in", "property", (v) => typeof v === "string" && /^\d{2}:00$/.test(v)],
      ["check_in", "reservation", (v) => typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v)],
      [
        "cover_level",
        "policy",
        (v) => ["basic", "standard", "comprehensive"].includes(v as string),
      ],
    ];
    for (const [field, entity, fits] of expected) {
      const value = valueFor(field, undefined, ctx(entity));
      expect(fits(value), `${field} on ${entity}: ${JSON.stringify(value)}`).toBe(true);
      expect(FILLER.test(String(value)), `${field}: ${String(value)}`).toBe(false);
    }
    // A list's item is one of them; an empty list said as one string is "none".
    const items = valueFor(
      "allergies",
      { type: "array", items: { type: "string" } },
      ctx("patient"),
    );
    expect(
      Array.isArray(items) &&
        items.every((a) => typeof a === "string" && a !== "" && !a.includes(",")),
    ).toBe(true);
    expect(valueFor("allergies", { type: "string" }, ctx("patient"))).not.toBe("");
    expect(valueFor("shortest", undefined, ctx("payment_plan"))).toMatch(/^[36] months$/);
    expect(valueFor("longest_allowed_terms", undefined, ctx("payment_plan"))).toMatch(
      /^(9|12) months$/,
    );
    expect(valueFor("search_terms", undefined, ctx("query"))).not.toMatch(/months/);
    expect(valueFor("check_in", undefined, ctx("hotel_booking"))).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // Names that only contain those words are not those kinds.
    expect(typeof valueFor("premium_support", undefined, ctx("plan"))).not.toBe("number");
    expect(String(valueFor("billable_hours", { type: "string" }, ctx("ticket")))).not.toMatch(
      /Mon–Fri/,
    );
    const said = valueFor("verified_domains", { type: "string" }, ctx("workspace"));
    expect(said).toMatch(/^[a-z-]+\.[a-z]+(, [a-z-]+\.[a-z]+)*$/);
  });

  it("never makes from a pattern, or by a field's name, a value the world refuses as a placeholder", () => {
    const ctx = { rng: new Rng(1, "digits"), entity: "account", isPerson: false, currency: "USD" };
    for (let i = 0; i < 30_000; i++) {
      const value = String(valueFor("bank_last4", { type: "string", pattern: "^\\d{4}$" }, ctx));
      expect(placeholderReason("bank_last4", value)).toBeNull();
      // A PIN drawn by its name alone (telecom's `transfer_pin` came out `1234`).
      const pin = String(valueFor("transfer_pin", { type: "string" }, ctx));
      expect(placeholderReason("transfer_pin", pin)).toBeNull();
    }
  });

  it("gives a field of countries' codes real countries, as its pattern takes them", () => {
    const real = new Set(COUNTRY_CODES);
    const rng = new Rng(5, "countries");
    const ctx = (entity: string) => ({ rng, entity, isPerson: false, currency: "USD" });
    for (let i = 0; i < 40; i++) {
      const codes = valueFor(
        "destination_countries",
        { type: "array", items: { type: "string", pattern: "^[A-Z]{2}$" }, minItems: 2 },
        ctx("roaming_pass"),
      ) as string[];
      for (const code of codes) expect(real.has(code)).toBe(true);
    }
    expect(
      valueFor("country_code", { type: "string", pattern: "^[a-z]{2}$" }, ctx("store")),
    ).toMatch(/^[a-z]{2}$/);
  });
});

describe("a stay", () => {
  it("runs one to fourteen nights and costs so much a night, however far apart its days were drawn", async () => {
    const hotel = await Agent.load("test/fixtures/specs/hotel.json");
    let stays = 0;
    for (let seed = 0; seed < 6; seed++) {
      const world = createWorld({
        spec: hotel,
        situation: situationOf(hotel, { tool: "cancel_reservation", world: "normal" }, seed),
      });
      for (const reservation of world.snapshot().collections.reservations ?? []) {
        const nights =
          (Date.parse(String(reservation.check_out)) - Date.parse(String(reservation.check_in))) /
          86_400_000;
        expect(nights).toBeGreaterThanOrEqual(1);
        expect(nights).toBeLessThanOrEqual(14);
        const nightly = (reservation.total as number) / nights;
        expect(nightly).toBeGreaterThanOrEqual(70);
        expect(nightly).toBeLessThanOrEqual(400);
        stays++;
      }
    }
    expect(stays).toBeGreaterThan(10);
  });
});

describe("a value whose description shows an example", () => {
  const ctx = () => ({
    rng: new Rng(5, "example"),
    entity: "account",
    isPerson: false,
    currency: "GBP",
  });
  const made = (field: string, description: string) =>
    valueFor(field, { type: "string", description }, ctx());

  it("takes the example's shape where it is a code: its letters kept, its digits drawn", () => {
    expect(
      made(
        "meter_serial",
        "Meter serial number as returned by get_meter_details, e.g. 'E11Z093341'.",
      ),
    ).toMatch(/^E\d{2}Z\d{6}$/);
    expect(made("vat_number", "The company's VAT number, e.g. PT123456789.")).toMatch(/^PT\d{9}$/);
    expect(made("reference", "A bank reference such as ACC 4410 2231.")).toMatch(
      /^ACC \d{4} \d{4}$/,
    );
  });

  it("keeps a year a year and a day a day where more digits follow them", () => {
    const rng = new Rng(3, "dated");
    for (let n = 0; n < 20; n++) {
      expect(
        (exampleCode("Invoice numbers look like 'INV-2025-004417'.") as (r: Rng) => string)(rng),
      ).toMatch(/^INV-(2025|2026)-\d{6}$/);
      const slot = (exampleCode("Slot id, e.g. 'SL-20250314-0930-T07'.") as (r: Rng) => string)(
        rng,
      );
      const day = /^SL-(\d{4})(\d{2})(\d{2})-\d{4}-T\d{2}$/.exec(slot);
      expect(day).not.toBeNull();
      const at = Date.UTC(Number(day?.[1]), Number(day?.[2]) - 1, Number(day?.[3]));
      expect(Math.abs(at - WORLD_TODAY)).toBeLessThanOrEqual(120 * 86_400_000);
    }
  });

  it("keeps the digits of a lone run or one with few digits after it free, so ids stay many", () => {
    const rng = new Rng(4, "free");
    for (const example of ["e.g. 'ORD-20250318'", "e.g. 'SLOT-20240614-AM-3'"]) {
      const make = exampleCode(example) as (r: Rng) => string;
      const leads = new Set(
        Array.from({ length: 30 }, () => make(rng).replace(/\D/g, "").slice(0, 4)),
      );
      expect(leads.size).toBeGreaterThan(10);
    }
  });

  it("is no code where the example is a name with a figure, a date, a time or an amount", () => {
    expect(
      made("medication_name", "Medication name and strength, e.g. 'lisinopril 10mg'."),
    ).not.toMatch(/lisinopril/);
    for (const description of [
      "Medication name and strength, e.g. 'lisinopril 10mg'.",
      "The day it starts, e.g. 2025-03-14.",
      "The hour, e.g. 09:30.",
      "A cap, e.g. 45.00.",
      "Short description in the patient's words, e.g. 'right knee pain after running'.",
    ])
      expect(exampleCode(description)).toBeNull();
  });
});

describe("choices a read's description gives a field in brackets", () => {
  /** Policies, whose fields come only from the read's description, as insurance-claims' do. */
  const policies = Agent.from({
    name: "said choices",
    system_prompt: "You help policyholders with their policies.",
    policy: [],
    tools: [
      mcpTool("find_policyholder", "Find a policyholder by email.", { email: { type: "string" } }),
      mcpTool(
        "get_policy",
        "Get the full details of a policy: product (motor/home), status (active, lapsed, cancelled), cover (basic or full), seat usage (used/paid), standing charges (pence/day), items (with item id and price), named drivers (motor) and payer (holder/other), payment day.",
        { policy_number: { type: "string" } },
      ),
      mcpTool("change_payer", "Change who pays a policy.", {
        policy_number: { type: "string" },
        payer: { type: "string", enum: ["holder", "employer", "other"] },
      }),
    ],
  });
  const policy = WorldModel.of(policies).entities.get("policy");

  it("are the field's closed set, and a status's are the record's states", () => {
    // Reproduction: insurance-claims' policies were for a "desk chair cushion", and closed.
    expect(policy?.fields.get("product")).toEqual({ type: "string", enum: ["motor", "home"] });
    expect(policy?.fields.get("cover")).toEqual({ type: "string", enum: ["basic", "full"] });
    expect(policy?.statuses).toEqual({ usable: ["active"], terminal: ["lapsed", "cancelled"] });
    for (let seed = 0; seed < 6; seed++) {
      const world = createWorld({
        spec: policies,
        situation: situationOf(policies, { tool: "get_policy" }),
        seed,
      });
      for (const p of world.snapshot().collections.policies ?? [])
        expect(["motor", "home"]).toContain(p.product);
    }
  });

  it("are not a measure's units or parts, what a field holds, one choice, or what a write's own choices give", () => {
    for (const field of ["seat_usage", "standing_charges", "items", "named_drivers"])
      expect(policy?.fields.get(field)?.enum, field).toBeUndefined();
    expect(policy?.fields.get("payer")?.enum).toEqual(["holder", "employer", "other"]);
  });
});
