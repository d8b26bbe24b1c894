import type { Rng } from "../rng.ts";
import { copyData } from "../util/copy.ts";
import { keyed } from "../util/lookup.ts";
import { memoized } from "../util/memo.ts";
import { snake } from "../util/names.ts";
import { DAY, isoDay, isoSecond, WORLD_TODAY } from "./dates.ts";
import { exampleCode } from "./examples.ts";
import {
  fitDetail,
  type Identity,
  identityKey,
  identityValue,
  makeIdentity,
  PLACE_DETAILS,
} from "./identity.ts";
import { fromPattern, patternCheck } from "./pattern.ts";
import { placeholderReason } from "./placeholders.ts";
import {
  CARRIERS,
  CITIES,
  COUNTRY_CODES,
  CURRENCIES,
  ISSUES,
  MERCHANTS,
  PAYEES,
  PLACES,
  type Place,
  PRODUCTS,
  REASONS,
  SCAN_PLACES,
  STREETS,
  VARIANTS,
  WORDS,
} from "./vocabulary.ts";

/** A JSON Schema fragment as found in tool schemas: only the keywords the generator reads. */
export interface SchemaFragment {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  properties?: Record<string, SchemaFragment>;
  items?: SchemaFragment;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  multipleOf?: number;
  description?: string;
}

/** What a value is generated for: the stream, the entity, and the owner whose details it may copy. */
export interface ValueContext {
  rng: Rng;
  entity: string;
  /** Whether the record is the person's own (so `name` is their name, not the record's label). */
  isPerson: boolean;
  currency: string;
  owner?: Identity;
  /** Where a record without an owner is (a tariff, a store): its zip, city, state and country. */
  place?: Whereabouts;
}

/** Where someone or something is: the place details of an identity. */
export type Whereabouts = Pick<Identity, "zip" | "city" | "state" | "country">;

/** A field that holds a country's code: `country`, `destination_country`, `country_codes`. */
const COUNTRY_CODE = /(^|_)countr(y|ies)(_codes?)?$/;
/** The real countries' codes a pattern takes, worked out once per pattern. */
const countryCodes = memoized((pattern: string) => {
  const fits = patternCheck(pattern);
  return fits ? COUNTRY_CODES.filter(fits) : [];
});

/** A person's identity: names, unique email, phone, date of birth and postal address. */
export function personIdentity(rng: Rng, serial: number, places?: readonly Place[]): Identity {
  return makeIdentity(rng, serial, WORLD_TODAY, places);
}

/** A currency for the whole world. */
export function worldCurrency(rng: Rng): string {
  return rng.pick(CURRENCIES);
}

/** Object fields that hold someone other than the record's owner. */
const OTHER_PERSON =
  /(emergency|guardian|spouse|partner|next_?of_?kin|kin|beneficiar|recipient|referr|dependa?e?nt|caregiver|carer)/i;

/** Object fields that only group a record's own details, not a thing of their own. */
const CONTAINER_FIELDS =
  /^(details?|info|information|data|metadata|meta|attributes|properties|extra|extras|summary|record|result|payload)$/;

/** A plausible value for a field, from its schema when given and its name otherwise. */
export function valueFor(
  field: string,
  schema: SchemaFragment | undefined,
  ctx: ValueContext,
): unknown {
  const s = schema ?? {};
  // Copies: a record's value is frozen with its baseline, and must never be the spec's own schema.
  if (s.const !== undefined) return copyData(s.const, true);
  if (Array.isArray(s.enum) && s.enum.length > 0) {
    // A record holds one of the real choices: `any` of a `time_of_day` is a filter's, not a slot's.
    const real = s.enum.filter((v) => !isCatchAll(v, s));
    return copyData(ctx.rng.pick(real.length > 0 ? real : s.enum), true);
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  // A detail of the owner (their phone, zip, date of birth) is theirs, in the form the schema takes.
  const detail = identityKey(field.toLowerCase());
  if (ctx.owner && detail && !(detail === "name" && field === "name" && !ctx.isPerson)) {
    const value = identityValue(detail, ctx.owner, s.pattern);
    if (value !== undefined && (type === undefined || type === "string")) return value;
  }
  if (ctx.place && detail && PLACE_DETAILS.has(detail) && (type === undefined || type === "string"))
    return fitDetail(field.toLowerCase(), ctx.place[detail as keyof Whereabouts], s.pattern);
  // A country's code is a real country's, as the schema takes it ("MX", never "HI").
  if (s.pattern && (type === undefined || type === "string") && COUNTRY_CODE.test(field)) {
    const codes = countryCodes(s.pattern);
    if (codes.length > 0) return ctx.rng.pick(codes);
  }
  // What the schema demands comes before what the field's name suggests.
  if (s.pattern && (type === undefined || type === "string")) {
    const generator = fromPattern(s.pattern);
    if (generator) {
      // Never a value the world would refuse from the agent as a placeholder (`0000`, `1234`).
      let value = generator.make(ctx.rng);
      for (let tries = 0; tries < 8 && placeholderReason(field, value) !== null; tries++)
        value = generator.make(ctx.rng);
      return value;
    }
  }
  const formatted = s.format ? byFormat(s.format, ctx.rng) : undefined;
  if (formatted !== undefined) return formatted;
  // A code whose description shows one ("meter serial, e.g. 'E11Z093341'") takes its shape.
  if ((type === undefined || type === "string") && detail === null && s.description) {
    const code = exampleCode(s.description);
    if (code) return code(ctx.rng);
  }
  if (type === "object" && s.properties) {
    // No prototype: a nested field a schema names `__proto__` is a field like any other.
    const out: Record<string, unknown> = keyed();
    // Its names and kinds are those of what the field names (a tariff's name is a tariff's),
    // unless the field only groups the record's own details; someone else's details (an
    // emergency contact's phone) are not the owner's.
    const inner = CONTAINER_FIELDS.test(field)
      ? ctx
      : OTHER_PERSON.test(field)
        ? { ...ctx, entity: singular(snake(field)), owner: undefined, isPerson: false }
        : { ...ctx, entity: singular(snake(field)) };
    for (const [name, sub] of Object.entries(s.properties)) out[name] = valueFor(name, sub, inner);
    return out;
  }
  if (
    type === "array" ||
    (type === undefined && /^(items|products|lines|line_items)$/.test(field))
  ) {
    const item = s.items ?? (/items|products|lines/.test(field) ? undefined : { type: "string" });
    const least = Math.max(1, s.minItems ?? 1);
    const most = Math.max(least, Math.min(s.maxItems ?? least + 2, least + 2));
    const count = least + ctx.rng.int(most - least + 1);
    const values = Array.from({ length: count }, () =>
      item ? valueFor(singular(field), item, ctx) : lineItem(ctx),
    );
    // A list never names the same thing twice (a schema's uniqueItems, or a list of choices).
    const seen = new Set<string>();
    return values.filter((v) => {
      const key = JSON.stringify(v);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }
  let named = byName(field.toLowerCase(), s, ctx);
  // Digits drawn by name (a PIN, an account number) are never ones the world refuses as a
  // placeholder either (`1234`, `0000`).
  for (
    let tries = 0;
    tries < 8 &&
    typeof named === "string" &&
    /^\d+$/.test(named) &&
    placeholderReason(field, named) !== null;
    tries++
  )
    named = byName(field.toLowerCase(), s, ctx);
  if (named !== undefined) return coerce(named, type, s, ctx);
  return byType(type, s, ctx);
}

/** A value made for a field by its name: chosen once per field, then only drawn. */
type NameRule = (ctx: ValueContext) => unknown;

/** Rules by entity (and whether it is the person's), then by field and format. */
const rules = new Map<string, Map<string, NameRule | null>>();

/**
 * A plausible value for a field by its name (a phone, a date, an amount, a product…). Which kind
 * of value a field gets depends only on its name, its schema's format and its entity, so the rule
 * is worked out once and kept: a world of thousands of records reads no pattern twice.
 */
function byName(field: string, s: SchemaFragment, ctx: ValueContext): unknown {
  const owner = ctx.isPerson ? `${ctx.entity}\u0000person` : ctx.entity;
  let byField = rules.get(owner);
  if (!byField) {
    // Entity names come from specs: a bounded memo.
    if (rules.size >= 5_000) rules.clear();
    byField = new Map();
    rules.set(owner, byField);
  }
  const key = s.format === undefined ? field : `${field}\u0000${s.format}`;
  let rule = byField.get(key);
  if (rule === undefined) {
    rule = nameRule(field, s.format, ctx.entity, ctx.isPerson) ?? null;
    if (byField.size < 10_000) byField.set(key, rule);
  }
  return rule === null ? undefined : rule(ctx);
}

function nameRule(
  field: string,
  format: string | undefined,
  entity: string,
  isPerson: boolean,
): NameRule | undefined {
  const someone = (rng: Rng) => personIdentity(rng, 0);
  // A masked detail ("holder_name_masked") is the detail with most of it starred out.
  const unmasked = /^masked_(\w+)$|^(\w+)_masked$/.exec(field);
  if (unmasked) {
    const base = (unmasked[1] ?? unmasked[2]) as string;
    const detail = identityKey(base) ?? (/(^|_)name$/.test(base) ? "name" : null);
    return detail === null
      ? ({ rng }) => masked(digits(rng, 8), null)
      : (ctx) => masked(ctx.owner?.[detail] ?? someone(ctx.rng)[detail], detail);
  }
  if (format === "email" || /(^|_)email(_address)?$/.test(field))
    return (ctx) => ctx.owner?.email ?? personIdentity(ctx.rng, ctx.rng.int(90)).email;
  if (/(^|_)(phone|mobile|phone_number|telephone)$/.test(field))
    return (ctx) => ctx.owner?.phone ?? someone(ctx.rng).phone;
  if (field === "name" && !isPerson) return labelFor;
  if (/^(name|full_name|customer_name|holder_name|account_holder|user_name)$/.test(field))
    return (ctx) => ctx.owner?.name ?? someone(ctx.rng).name;
  if (/^(address_?line_?2|address2|apartment|unit|suite)$/.test(field))
    return ({ rng }) => `${rng.pick(["Apt", "Unit", "Suite"])} ${1 + rng.int(40)}`;
  if (/^(state|province|region|county|state_code)$/.test(field))
    return (ctx) => ctx.owner?.state ?? someone(ctx.rng).state;
  if (/(^|_)(pin|passcode|pin_code|transfer_pin)$/.test(field))
    return ({ rng }) => digits(rng, 4 + rng.int(3));
  if (/^sort_code$/.test(field))
    return ({ rng }) => `${digits(rng, 2)}-${digits(rng, 2)}-${digits(rng, 2)}`;
  if (/(^|_)(account_number|bank_account_number|iban)$/.test(field))
    return ({ rng }) => digits(rng, 8);
  if (/(^|_)(imei)$/.test(field)) return ({ rng }) => digits(rng, 15);
  if (
    /(^|_)(carrier|provider|company|insurer|bank|pharmacy|employer|merchant|vendor|supplier|clinic|hospital|practice|airline|hotel|store|shop)(_name)?$/.test(
      field,
    )
  )
    return organisation(field);
  if (/^(name_on_\w+|\w*holder_name|contact_name|driver_name|passenger_name)$/.test(field))
    return (ctx) => ctx.owner?.name ?? someone(ctx.rng).name;
  if (/^(assignee|assigned_to|agent|technician|handler|rep|owner_name|manager)$/.test(field))
    return ({ rng }) => someone(rng).name;
  // Someone at work, named in a record about them (a slot's `therapist_name`).
  if (/_name$/.test(field) && STAFF.test(field.replace(/_name$/, "")))
    return ({ rng }) => someone(rng).name;
  if (/^(subject|issue|problem|title)$/.test(field) && !/item|product/.test(entity))
    return ({ rng }) => rng.pick(ISSUES);
  if (field === "first_name")
    return (ctx) => (ctx.owner?.name ?? someone(ctx.rng).name).split(" ")[0];
  if (field === "last_name")
    return (ctx) => (ctx.owner?.name ?? someone(ctx.rng).name).split(" ").slice(1).join(" ");
  if (/address$/.test(field) && !/email|(^|_)ip(_|$)/.test(field))
    return (ctx) => ctx.owner?.address ?? address(ctx.rng, ctx.place);
  if (field === "city") return ({ rng }) => rng.pick(CITIES)[0];
  if (/(^|_)(zip|postcode|postal_code|zip_code)$/.test(field))
    return ({ rng }) => rng.pick(CITIES)[1];
  if (field === "country") return ({ rng }) => rng.pick(["US", "GB", "CA", "FR", "AU", "IE"]);
  if (field === "currency") return (ctx) => ctx.currency;
  if (/^(dob|date_of_birth|birth_?date|birthday)$/.test(field))
    return ({ rng }) => personIdentity(rng, rng.int(90)).date_of_birth;
  if (format === "date" || /(_date|_on)$|^(date|due|expires|expiry)$/.test(field)) {
    const ahead = FUTURE.test(field) ? 1 : -1;
    return ({ rng }) => isoDate(rng, ahead);
  }
  if (format === "date-time" || /(_at|_time|timestamp)$|^(created|updated|time)$/.test(field)) {
    // A moment still to come (a slot's `start`, a departure) is ahead, as its day would be; one
    // that has happened (`started_at`, `created_at`) is behind.
    if (FUTURE.test(field) && !/(?<!schedul)ed_at$/.test(field))
      return ({ rng }) => isoSecond(WORLD_TODAY + (1 + rng.int(60)) * DAY + rng.int(DAY));
    return ({ rng }) => isoSecond(WORLD_TODAY - rng.int(90) * DAY - rng.int(DAY));
  }
  // How many of something a record counts: a trip's stops or bags (none, possibly), seats left, a
  // stay's nights (at least one). Before money: `number_of_paid_bags` counts bags.
  if (/(^|_)(stops|bags)$/.test(field)) return ({ rng }) => rng.int(3);
  // A loyalty balance runs to thousands of points, earned in hundreds: enough to redeem some.
  if (
    /^((loyalty|rewards?|bonus|award)_)?(points|miles)_(balance|available|total)$|^(loyalty|rewards?|bonus|award)_(points|miles)$/.test(
      field,
    )
  )
    return ({ rng }) => 100 * rng.int(500);
  if (/_(left|remaining)$/.test(field)) return ({ rng }) => 1 + rng.int(9);
  if (
    /^(number_of|num|count_of)_(?!items$)|_count$|^(days|nights|guests)_|_(nights|guests)$/.test(
      field,
    )
  )
    return ({ rng }) => 1 + rng.int(4);
  // What a plan or booking holds a number of: `paid_seats` counts seats, not money paid.
  if (
    /(^|_)(seats|licen[cs]es|users|members|devices|lines|rooms|passengers|attendees|employees)$/.test(
      field,
    )
  )
    return ({ rng }) => 1 + rng.int(49);
  if (/(^|_)tier$/.test(field)) return ({ rng }) => rng.pick(TIERS);
  if (/^(balance|current|available|current_balance|available_balance|credit_limit)$/.test(field))
    return ({ rng }) => money(rng, 150, 9000);
  if (
    /(amount|total|price|cost|fee|subtotal|refund|charge|spent|paid)|(^|_)(copay|premium|deductible|out_of_pocket|balance|arrears)(_amount)?$|(^|_)(vat|tax|taxes|quote|credits?|payments_received|instalments?|installments?)$/.test(
      field,
    )
  )
    return ({ rng }) => money(rng, 8, 450);
  // When a place is open: weekdays, Saturday and Sunday.
  if (/^(opening_|business_|store_|office_)?hours$/.test(field))
    return ({ rng }) =>
      `Mon–Fri ${rng.pick(["08:00", "09:00"])}–${rng.pick(["18:00", "20:00", "21:00"])}, Sat ${rng.pick(["09:00", "10:00"])}–${rng.pick(["14:00", "17:00"])}, Sun ${rng.pick(["closed", "10:00–16:00"])}`;
  // What a line or plan used this cycle; anything else, a share of its allowance.
  if (/(^|_)usage$/.test(field)) {
    if (/line|sim|phone|mobile|plan|subscription/.test(entity))
      return ({ rng }) =>
        `${1 + rng.int(19)}.${rng.int(10)} GB of data, ${rng.int(900)} minutes and ${rng.int(300)} texts this billing cycle`;
    return ({ rng }) => {
      const allowance = 5 * (2 + rng.int(19));
      return `${1 + rng.int(allowance)} of ${allowance} used`;
    };
  }
  if (/^(quantity|qty|count|number_of_items|units)$/.test(field))
    return ({ rng }) => 1 + rng.int(4);
  if (field === "carrier") return ({ rng }) => rng.pick(CARRIERS);
  if (/tracking(_number|_id|_code)?$/.test(field)) return ({ rng }) => `1Z${alphanumeric(rng, 16)}`;
  if (/(last_scan|location|last_location|scan)/.test(field))
    return ({ rng }) => `${rng.pick(SCAN_PLACES)}, ${isoDate(rng, -1)}`;
  if (/^(eta|estimated_delivery|delivery_estimate)$/.test(field))
    return ({ rng }) => isoDate(rng, 1);
  if (/(product|item_name|^item$|^title$)/.test(field)) return ({ rng }) => rng.pick(PRODUCTS);
  if (/(variant|size|colou?r)/.test(field)) return ({ rng }) => rng.pick(VARIANTS);
  if (/reason/.test(field)) return ({ rng }) => rng.pick(REASONS);
  if (/^(payee|payee_name|biller|vendor)$/.test(field)) return ({ rng }) => rng.pick(PAYEES);
  if (/(merchant|counterparty)/.test(field)) return ({ rng }) => rng.pick(MERCHANTS);
  if (/(description|memo|narrative|details)/.test(field)) {
    if (/transaction|payment|charge|transfer/.test(entity)) return ({ rng }) => rng.pick(MERCHANTS);
    if (/ticket|issue|case|incident|request/.test(entity))
      return ({ rng }) => `${rng.pick(ISSUES)} since ${isoDate(rng, -1)}`;
    return (ctx) =>
      `${labelFor(ctx)}, ${ctx.rng.pick(["standard terms", "renewed yearly", "added by the customer", "opened online"])}`;
  }
  if (/^(note|notes|comment|summary|message)$/.test(field))
    return ({ rng }) =>
      rng
        .pick([
          "I called about this on {date} and was asked to add it here.",
          "Please call me back after 5pm.",
          "I have the paperwork if you need a copy.",
          "This started on {date}.",
          "Please use my mobile number to reach me.",
        ])
        .replace("{date}", isoDate(rng, -1));
  if (/^(type|kind|category|account_type|card_type)$/.test(field)) return categoryFor;
  if (/(last4|last_four|last_4)/.test(field))
    return ({ rng }) => String(rng.int(10_000)).padStart(4, "0");
  if (/^(is_|has_|can_)/.test(field)) return ({ rng }) => rng.chance(0.5);
  // Parts of a date of birth ("the month and day of birth") are the owner's, never invented.
  // A bare "month" or "day" on a person's record is of their birth; elsewhere it is a billing month.
  const birthPart =
    /^(birth_?month|month_of_birth)$/.test(field) || (isPerson && field === "month")
      ? "month"
      : /^(birth_?day|day_of_birth)$/.test(field) || (isPerson && field === "day")
        ? "day"
        : /^(birth_?year|year_of_birth)$/.test(field)
          ? "year"
          : null;
  if (birthPart) {
    const at = { year: 0, month: 1, day: 2 }[birthPart];
    return (ctx) =>
      Number(
        (ctx.owner?.date_of_birth ?? personIdentity(ctx.rng, ctx.rng.int(90)).date_of_birth).split(
          "-",
        )[at],
      );
  }
  const kinds = fieldKindRule(field, entity);
  if (kinds) return kinds;
  // A code or number of a kind the world does not know: letters from its name, then digits.
  const kind = codedKind(field);
  if (kind !== null) {
    const prefix = kind.slice(0, 3).toUpperCase();
    return ({ rng }) => `${prefix}-${digits(rng, 6)}`;
  }
  // A name of a kind the world does not know (a medication, a plan): a made-up proper name.
  if (/_name$/.test(field)) return ({ rng }) => properName(rng);
  if (/(^id$|_id$)/.test(field)) {
    const prefix = field.replace(/_id$/, "").slice(0, 3).toUpperCase() || "ID";
    return ({ rng }) => `${prefix}-${digits(rng, 6)}`;
  }
  return undefined;
}

/** Company domains a workspace or an employer may hold. */
const DOMAINS = [
  "acme-logistics.com",
  "northwind.io",
  "harborworks.co",
  "bluepeak.org",
  "lumen-labs.com",
  "fernhill.net",
];
const ALLERGIES = ["penicillin", "sulfa drugs", "aspirin", "latex", "codeine", "ibuprofen"];
const CHANNELS = ["email", "sms", "phone", "post"];
const CARDS = ["Visa", "Mastercard", "Amex"];
const DOSING = [
  "Take 1 tablet by mouth once daily",
  "Take 1 tablet by mouth twice daily with food",
  "Take 2 capsules by mouth at bedtime",
  "Apply a thin layer to the affected area twice daily",
];

/** One to `most` distinct picks of `choices`, in their order. */
function some<T>(rng: Rng, choices: readonly T[], most: number): T[] {
  const wanted = 1 + rng.int(most);
  const picked = choices.filter(() => rng.chance(wanted / choices.length)).slice(0, most);
  return picked.length > 0 ? picked : [rng.pick(choices)];
}

/**
 * Values for kinds of field many specs name without a schema that says more: a feature's on-or-off
 * status, domains, the people a record lists, preferences, allergies, histories, saved cards, a
 * distance, a coupon, dosing directions. A plural name is a list.
 */
function fieldKindRule(field: string, entity: string): NameRule | undefined {
  const many = /s$|_list$/.test(field);
  if (
    /(^|_)(sso|scim|mfa|2fa|two_factor|autopay|auto_pay|auto_renew(al)?|paperless|e_?billing)(_\w+)?_status$/.test(
      field,
    )
  )
    return ({ rng }) => rng.pick(["enabled", "disabled"]);
  if (/(^|_)domains?$/.test(field))
    return ({ rng }) => (many ? some(rng, DOMAINS, 2) : rng.pick(DOMAINS));
  if (
    /^(owners?|admins?|owner_list|admin_list|authorized_\w+|caregivers?|approvers?|signatories|guardians?|spouse|next_of_kin)$/.test(
      field,
    )
  )
    return ({ rng }) => {
      const names = Array.from(
        { length: 1 + rng.int(2) },
        (_, at) => personIdentity(rng, at + 1).name,
      );
      return many ? names : names[0];
    };
  // A list's item (`allergy` of `allergies`) is one of them.
  if (/(^|_)(communication|contact)_preferences?$/.test(field))
    return ({ rng }) => (many ? some(rng, CHANNELS, 2) : rng.pick(CHANNELS));
  if (/(^|_)allerg(y|ies)(_flags)?$|^allergy_\w+$/.test(field))
    return ({ rng }) =>
      many ? (rng.chance(0.4) ? [] : some(rng, ALLERGIES, 2)) : rng.pick(ALLERGIES);
  // A history is told in the order it happened.
  if (/(^|_)payment_history$/.test(field))
    return ({ rng }) =>
      inOrder(
        Array.from({ length: 1 + rng.int(3) }, () => ({
          date: isoDate(rng, -1),
          amount: money(rng, 8, 450),
        })),
      );
  if (/(^|_)fill_history$/.test(field))
    return ({ rng }) =>
      inOrder(
        Array.from({ length: 1 + rng.int(3) }, () => ({
          date: isoDate(rng, -1),
          days_supply: rng.pick([30, 60, 90]),
        })),
      );
  if (/(^|_)(saved_)?payment_methods?$/.test(field))
    return ({ rng }) => {
      const cards = Array.from(
        { length: many ? 1 + rng.int(2) : 1 },
        () => `${rng.pick(CARDS)} ending ${String(rng.int(10_000)).padStart(4, "0")}`,
      );
      return many ? cards : cards[0];
    };
  // A plan's terms: how many months it may run, the shortest never past the longest.
  if (/^(shortest|longest)(_allowed)?(_terms?|_months?)?$/.test(field))
    return field.startsWith("shortest")
      ? ({ rng }) => `${rng.pick([3, 6])} months`
      : ({ rng }) => `${rng.pick([9, 12])} months`;
  // A place's check-in and check-out are times of day; a stay's are days.
  if (/^check_?(in|out)(_times?)?$/.test(field)) {
    if (/^(property|hotel|venue|location|store|branch)$/.test(entity))
      return ({ rng }) =>
        /in/.test(field)
          ? rng.pick(["14:00", "15:00", "16:00"])
          : rng.pick(["10:00", "11:00", "12:00"]);
    return ({ rng }) => isoDate(rng, 1);
  }
  if (/^amenities$/.test(field))
    return ({ rng }) =>
      some(rng, ["free wifi", "pool", "gym", "breakfast", "spa", "restaurant"], 3);
  if (/^(room_categories|room_types)$/.test(field))
    return ({ rng }) => some(rng, ["standard", "deluxe", "family", "suite"], 3);
  if (/^parking$/.test(field))
    return ({ rng }) =>
      rng.pick(["on-site, 25.00 a night", "street parking only", "valet, 40.00 a night"]);
  if (/^pet_policy$/.test(field))
    return ({ rng }) =>
      rng.pick(["dogs up to 15 kg, 30.00 a stay", "no pets, assistance animals welcome"]);
  if (/^cancellation_(deadline|window|policy)$/.test(field))
    return ({ rng }) => `free until ${rng.pick([24, 48, 72])} hours before arrival`;
  if (/^cover(age)?_level$/.test(field))
    return ({ rng }) => rng.pick(["basic", "standard", "comprehensive"]);
  if (/^excess(es)?$/.test(field)) return ({ rng }) => money(rng, 100, 1000);
  if (/^named_drivers$/.test(field))
    return ({ rng }) =>
      Array.from({ length: 1 + rng.int(2) }, (_, at) => personIdentity(rng, at + 1).name);
  if (/^renewal_dates$/.test(field)) return ({ rng }) => [isoDate(rng, 1)];
  if (/^(start|end)$/.test(field)) return ({ rng }) => isoDate(rng, field === "end" ? 1 : -1);
  if (/^distance(_\w+)?$/.test(field))
    return ({ rng }) => `${(0.3 + rng.int(150) / 10).toFixed(1)} miles`;
  if (/^(applied_)?(coupon|promo(tion)?)(_code)?$/.test(field))
    return ({ rng }) =>
      `${rng.pick(["SAVE", "WELCOME", "SPRING", "LOYAL"])}${5 * (1 + rng.int(6))}`;
  if (
    /^(directions|dosage|sig|dosing_instructions)$/.test(field) &&
    /prescri|medic|rx|drug/.test(entity)
  )
    return ({ rng }) => rng.pick(DOSING);
  if (/^options$/.test(field) && /product|item|variant/.test(entity))
    return ({ rng }) => some(rng, VARIANTS, 2);
  return undefined;
}

/** Dates that lie ahead of today: what is due, booked or about to start. */
const FUTURE =
  /due|expir|next|scheduled|appointment|departure|depart|check_?in|check_?out|arrival|return_date|start|end|move_?in|move_?out|effective|travel|flight|event|pickup|eta|renewal|valid_to|until|to_date|from_date|first_payment|collection/;

/** Pairs of fields where the second comes after the first: from → to, start → end, check in → check out. */
const ORDERED: [RegExp, string][] = [
  [/(^|_)from(_|$)/, "to"],
  [/(^|_)start(_|$)/, "end"],
  [/(^|_)check_?in(_|$)/, "check_out"],
  [/(^|_)departure(_|$)/, "arrival"],
  [/(^|_)valid_from(_|$)/, "valid_to"],
  [/(^|_)move_in(_|$)/, "move_out"],
  [/(^|_)created(_|$)/, "updated"],
];

/**
 * Puts a record's dates in order: an end after its start, a check-out after the check-in, an
 * update after the creation. Dates are swapped, never invented, so values stay those generated.
 */
export function datesInOrder(
  record: Record<string, unknown>,
  pairs: readonly [string, string][] = orderedPairs(Object.keys(record)),
): void {
  for (const [first, second] of pairs) {
    const [a, b] = [record[first], record[second]];
    if (
      typeof a === "string" &&
      typeof b === "string" &&
      /^\d{4}-\d{2}-\d{2}/.test(a) &&
      /^\d{4}-\d{2}-\d{2}/.test(b) &&
      b < a
    ) {
      record[first] = b;
      record[second] = a;
    }
  }
}

/** Nights a stay runs at most, and the least and most a night costs. */
const LONGEST_STAY = 14;
const NIGHTLY = { least: 70, most: 400 };

/**
 * A stay (a record with a check-in and a check-out day) runs one to {@link LONGEST_STAY} nights,
 * its `nights` says so, and where nothing else makes its `total` it costs so much a night: a
 * 25-night stay for 28.20 is no booking a hotel makes.
 */
export function stayInShape(
  record: Record<string, unknown>,
  rng: Rng,
  [checkIn, checkOut]: readonly [string, string],
): void {
  const start = record[checkIn];
  if (typeof start !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(start)) return;
  const nights = 1 + rng.int(LONGEST_STAY);
  record[checkOut] = isoDay(Date.parse(start) + nights * DAY);
  if (typeof record.nights === "number") record.nights = nights;
  if (typeof record.total === "number")
    record.total = Math.round(nights * money(rng, NIGHTLY.least, NIGHTLY.most) * 100) / 100;
}

/** A record's check-in and check-out fields, when it has both: a stay (see {@link stayInShape}). */
export function stayFields(fields: readonly string[]): readonly [string, string] | null {
  const checkIn = fields.find((k) => /^check_?in(_date)?$/.test(k));
  const checkOut = fields.find((k) => /^check_?out(_date)?$/.test(k));
  return checkIn && checkOut ? [checkIn, checkOut] : null;
}

/** Other names of a record's creation (`creation_date`, `date_created`…): the same moment as its `created_at`. */
const CREATION =
  /^(creation_(date|time|timestamp)|date_(created|of_creation)|created_(date|on|time))$/;

/**
 * Fields that name a record's creation in other words hold its `created_at`, as a day where the
 * field is a date: a description's "creation date" is the day the record was made, not a second
 * one. What came after it (`updated_on` after `created_on`) still does; fields in `given` (a
 * write's own arguments) keep what was given.
 */
export function creationAliases(
  record: Record<string, unknown>,
  given: ReadonlySet<string> = new Set(),
): void {
  const created = record.created_at;
  if (typeof created !== "string") return;
  for (const field of Object.keys(record)) {
    if (!CREATION.test(field) || given.has(field)) continue;
    const day = /date|_on$/.test(field) ? created.slice(0, 10) : created;
    record[field] = day;
    const after = field.replace(/creation|created/, (w) =>
      w === "creation" ? "update" : "updated",
    );
    const later = record[after];
    if (typeof later === "string" && /^\d{4}-\d{2}-\d{2}/.test(later) && later < day)
      record[after] =
        later.length <= day.length
          ? day.slice(0, later.length)
          : `${day}${later.slice(day.length)}`;
  }
}

const pairsByFields = new Map<string, [string, string][]>();

/** The pairs of a record's fields that must be in order, worked out once per set of field names. */
export function orderedPairs(fields: string[]): [string, string][] {
  const key = fields.join("\u0000");
  let pairs = pairsByFields.get(key);
  if (pairs) return pairs;
  pairs = [];
  const present = new Set(fields);
  for (const first of fields) {
    for (const [pattern, opposite] of ORDERED) {
      if (!pattern.test(first)) continue;
      const second = first.replace(pattern, (m) =>
        m.replace(/from|start|check_?in|departure|valid_from|move_in|created/, opposite),
      );
      if (second !== first && present.has(second)) pairs.push([first, second]);
    }
  }
  // Field names come from specs: a bounded cache, as there are only so many shapes.
  if (pairsByFields.size < 10_000) pairsByFields.set(key, pairs);
  return pairs;
}
/** A random version-4 UUID. */
export function uuid(rng: Rng): string {
  const hex = (n: number) =>
    Array.from({ length: n }, () => "0123456789abcdef"[rng.int(16)]).join("");
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${"89ab"[rng.int(4)]}${hex(3)}-${hex(12)}`;
}

function byFormat(format: string, rng: Rng): string | undefined {
  switch (format) {
    case "uuid":
      return uuid(rng);
    case "time":
      return `${String(8 + rng.int(10)).padStart(2, "0")}:${rng.pick(["00", "15", "30", "45"])}:00`;
    case "uri":
    case "url":
      return `https://files.${rng.pick(WORDS)}-support.net/${uuid(rng).slice(0, 8)}`;
    default:
      return undefined;
  }
}

function byType(type: string | undefined, s: SchemaFragment, ctx: ValueContext): unknown {
  const { rng } = ctx;
  switch (type) {
    case "integer":
      return multiple(Math.round(bounded(s, rng, 1, 20)), s);
    case "number":
      return multiple(Math.round(bounded(s, rng, 1, 100) * 100) / 100, s);
    case "boolean":
      return rng.chance(0.5);
    case "null":
      return null;
    default: {
      // A field the world knows nothing of gets a short code-like word, not its own name echoed.
      const word = rng.pick(WORDS);
      return `${word[0]?.toUpperCase()}${word.slice(1)}-${digits(rng, 3)}`.slice(
        0,
        s.maxLength ?? 80,
      );
    }
  }
}

/** A number moved onto the schema's multipleOf (points in thousands), kept within its bounds. */
function multiple(value: number, s: SchemaFragment): number {
  if (!s.multipleOf || s.multipleOf <= 0) return value;
  const steps = Math.max(1, Math.round(value / s.multipleOf));
  const min = s.minimum ?? s.exclusiveMinimum ?? Number.NEGATIVE_INFINITY;
  let out = Number((steps * s.multipleOf).toFixed(6));
  if (out < min) out = Number((Math.ceil(min / s.multipleOf) * s.multipleOf).toFixed(6));
  return out;
}

/** The choices of an enum that stand for every other one. */
const CATCH_ALL = /^(all|any|either|both|everything|any_?time)$/i;

/** Whether a value is its enum's catch-all choice (`status: "all"`), which names no value of its own. */
export function isCatchAll(value: unknown, schema: SchemaFragment | undefined): boolean {
  return (
    typeof value === "string" &&
    CATCH_ALL.test(value) &&
    Array.isArray(schema?.enum) &&
    schema.enum.includes(value) &&
    schema.enum.length > 1
  );
}

/** Tiers of a membership or a plan, lowest first. */
const TIERS = ["standard", "silver", "gold", "platinum"];

/**
 * A detail with all but what identifies it starred out: each word of a name keeps its first letter
 * (`J*** S****`), anything else its last four characters.
 */
function masked(value: string, detail: string | null): string {
  if (detail === "name" || detail === "first_name" || detail === "last_name")
    return value.replace(
      /(\p{L})(\p{L}+)/gu,
      (_, first: string, rest: string) => first + "*".repeat(rest.length),
    );
  return value.length <= 4 ? value : "*".repeat(value.length - 4) + value.slice(-4);
}

/** Business names of the field's kind (`pharmacy_name` → "Basalt Pharmacy"): the kind is read once per field. */
function organisation(field: string): NameRule {
  const kind =
    field
      .replace(/_name$/, "")
      .split("_")
      .at(-1) ?? "company";
  const label =
    kind === "carrier"
      ? "Mobile"
      : kind === "bank"
        ? "Bank"
        : kind[0]?.toUpperCase() + kind.slice(1);
  return ({ rng }) => {
    const word = rng.pick(WORDS);
    return `${word[0]?.toUpperCase()}${word.slice(1)} ${label}`;
  };
}

/** Makes a generated value fit the declared type (a money amount for a string field, and so on). */
function coerce(
  value: unknown,
  type: string | undefined,
  s: SchemaFragment,
  ctx: ValueContext,
): unknown {
  if (type === undefined) return value;
  if (type === "string")
    return typeof value === "string"
      ? value
      : Array.isArray(value) && value.length === 0
        ? "none"
        : spokenList(value);
  if (type === "object")
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : keyed();
  if (type === "integer")
    return typeof value === "number"
      ? multiple(withinBounds(Math.round(value), s, 1), s)
      : byType(type, s, ctx);
  if (type === "number")
    return typeof value === "number"
      ? multiple(withinBounds(value, s, 0.01), s)
      : byType(type, s, ctx);
  if (type === "boolean") return typeof value === "boolean" ? value : ctx.rng.chance(0.5);
  return value;
}

/** A value a field's name suggested, said as one string: a list's items joined, an object's values. */
function spokenList(value: unknown): string {
  if (Array.isArray(value)) return value.map(spokenList).join(", ");
  if (value !== null && typeof value === "object")
    return Object.values(value).map(spokenList).join(" ");
  return String(value);
}

/**
 * A value a field's name suggested (a count, an amount) moved into the schema's bounds: what the
 * schema demands comes first. `step` is how far past an exclusive minimum the value goes.
 */
function withinBounds(value: number, s: SchemaFragment, step: number): number {
  let out = value;
  if (s.maximum !== undefined && out > s.maximum) out = s.maximum;
  if (s.minimum !== undefined && out < s.minimum) out = s.minimum;
  if (s.exclusiveMinimum !== undefined && out <= s.exclusiveMinimum)
    out = s.exclusiveMinimum + step;
  return out;
}

function bounded(s: SchemaFragment, rng: Rng, low: number, high: number): number {
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : low);
  const max = s.maximum ?? Math.max(min + 1, high);
  return min + rng.next() * (max - min);
}

function lineItem(ctx: ValueContext): Record<string, unknown> {
  return {
    name: ctx.rng.pick(PRODUCTS),
    variant: ctx.rng.pick(VARIANTS),
    quantity: 1 + ctx.rng.int(3),
    price: money(ctx.rng, 8, 220),
  };
}

/** What a record of a non-person entity is called: a product, a payee, an account's nickname. */
/** Kinds of record that are people at work: a therapist is called by a person's name. */
const STAFF =
  /(^|_)(therapist|doctor|physician|dentist|nurse|pharmacist|adjuster|advisor|adviser|technician|engineer|instructor|trainer|coach|stylist|consultant|clinician|practitioner|counsel+or|lawyer|attorney|tutor|teacher|courier|driver|agent|specialist)$/;

function labelFor(ctx: ValueContext): string {
  const { rng, entity } = ctx;
  if (STAFF.test(entity)) return personIdentity(rng, 0).name;
  if (/item|product/.test(entity)) return rng.pick(PRODUCTS);
  if (/payee|biller|merchant/.test(entity)) return rng.pick(PAYEES);
  if (/account/.test(entity))
    return rng.pick([
      "Everyday checking",
      "Rainy-day savings",
      "Joint checking",
      "Holiday savings",
    ]);
  if (/card/.test(entity)) return rng.pick(["Visa debit", "Mastercard credit", "Travel card"]);
  const word = rng.pick(WORDS);
  return `${word[0]?.toUpperCase()}${word.slice(1)} ${entity.replace(/_/g, " ")}`;
}

function categoryFor(ctx: ValueContext): string {
  if (/account/.test(ctx.entity)) return ctx.rng.pick(["checking", "savings"]);
  if (/card/.test(ctx.entity)) return ctx.rng.pick(["debit", "credit"]);
  if (/payee|biller/.test(ctx.entity))
    return ctx.rng.pick(["utility", "insurance", "rent", "subscription", "person"]);
  if (/transaction/.test(ctx.entity))
    return ctx.rng.pick(["card_payment", "direct_debit", "transfer_in", "transfer_out"]);
  return ctx.rng.pick(["standard", "express", "premium"]);
}

/** A street address, in the place given (a store near the person) or anywhere. */
function address(rng: Rng, place?: Whereabouts): string {
  const where = place ?? rng.pick(PLACES);
  return `${1 + rng.int(240)} ${rng.pick(STREETS)}, ${where.city} ${where.zip}`;
}

function isoDate(rng: Rng, direction: 1 | -1): string {
  return isoDay(WORLD_TODAY + direction * (1 + rng.int(120)) * DAY);
}

/** A money amount with two decimals in [low, high). */
export function money(rng: Rng, low: number, high: number): number {
  return Math.round((low + rng.next() * (high - low)) * 100) / 100;
}

/** `n` random decimal digits. */
export function digits(rng: Rng, n: number): string {
  let out = "";
  for (let i = 0; i < n; i++) out += String(rng.int(10));
  return out;
}

function alphanumeric(rng: Rng, n: number): string {
  const chars = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789";
  let out = "";
  for (let i = 0; i < n; i++) out += chars[rng.int(chars.length)];
  return out;
}

/** English singular of a plural noun: orders → order, entries → entry, addresses → address. */
export function singular(word: string): string {
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|sh|ch|x|z)es$/.test(word)) return word.slice(0, -2);
  if (/[^s]s$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Dated entries, oldest first. */
function inOrder<T extends { date: string }>(entries: T[]): T[] {
  return entries.sort((x, y) => x.date.localeCompare(y.date));
}

/** English plural of a noun: order → orders, entry → entries, address → addresses. */
export function plural(word: string): string {
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  if (/(s|sh|ch|x|z)$/.test(word)) return `${word}es`;
  return `${word}s`;
}

/** A made-up proper name of two or three syllables ("Loravex"), for things of unknown kind. */
function properName(rng: Rng): string {
  const onsets = [
    "b",
    "c",
    "d",
    "f",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "z",
    "br",
    "cl",
    "tr",
  ];
  const vowels = ["a", "e", "i", "o", "u", "ia", "ea"];
  const endings = ["x", "n", "l", "r", "ne", "va", "lin", "dex", "ra", "sol"];
  let name = "";
  for (let i = 0, n = 2 + rng.int(2); i < n; i++) name += rng.pick(onsets) + rng.pick(vowels);
  name += rng.pick(endings);
  return `${name[0]?.toUpperCase()}${name.slice(1)}`;
}

/**
 * The kind a code's field name gives (`ref` of `order_ref_number`, `policy` of `policy_no`), or
 * null for a name that is no code: the last word before `_number`, `_no`, `_code`, `_ref` or
 * `_reference`, as `/^(?:\w+_)?(\w+?)_(number|no|code|ref|reference)$/` reads it, found in one
 * pass (that pattern backtracks quadratically on a long name).
 */
function codedKind(field: string): string | null {
  if (!/^\w+$/.test(field)) return null;
  const suffix = /_(?:number|no|code|ref|reference)$/.exec(field);
  if (!suffix || suffix.index === 0) return null;
  const head = field.slice(0, suffix.index);
  // The last underscore with a word character before it and the kind after it.
  for (let at = head.length - 2; at >= 1; at--) if (head[at] === "_") return head.slice(at + 1);
  return head;
}
