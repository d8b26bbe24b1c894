import type { ToolDefinition } from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import { type ArgumentCheck, argumentCheck } from "../arguments.ts";
import { valueCheck } from "../schema-checks.ts";
import { nameWords, parametersPath, verbOf } from "../tools.ts";
import { type InputIssue, SpecError } from "../util/errors.ts";
import { stillWorking } from "../util/long-work.ts";
import { lookup } from "../util/lookup.ts";
import { snake } from "../util/names.ts";
import { regexLiteral } from "../util/regex.ts";
import { type AnswerShape, answerShape, isOutcomeField } from "./answer-shape.ts";
import { type DateWindow, dateWindowsOf } from "./date-windows.ts";
import { eitherOf, withEither } from "./either.ts";
import { identityKey, PERSONAL_DETAILS, placesFitting } from "./identity.ts";
import { type IdFormat, type IdParameter, idFormat, unfitParameters, uniquePrefix } from "./ids.ts";
import { readsOneRecord } from "./one-record.ts";
import {
  QUOTED_STATE,
  type Requirement,
  requirementOf,
  STATUS_WORDS,
  type Statuses,
  statesListed,
  statusesOf,
  statusKey,
  statusViewsOf,
} from "./statuses.ts";
import { plural, type SchemaFragment, singular } from "./values.ts";
import { type Place, STATUS_AFTER, STATUS_AFTER_NAMED } from "./vocabulary.ts";

/** What a tool does to the world. */
export type ToolKind = "read_one" | "read_many" | "change" | "create" | "handoff" | "utility";

/** A kind of record the world stores, inferred from the tools' identifiers, outputs and names. */
export interface EntityModel {
  name: string;
  collection: string;
  idField: string;
  idFormat: IdFormat;
  /** Generated fields beyond the id, links and status, with the schema that shapes each when known. */
  fields: Map<string, SchemaFragment | undefined>;
  /** Fields only a change writes (a refund's amount, a cancellation's reason): absent until then. */
  written: Map<string, SchemaFragment | undefined>;
  /** The record this one belongs to (a transaction to an account), when a tool names both. */
  parent: { entity: string; field: string } | null;
  statuses: Statuses;
  /**
   * A list's status filter whose choices are views, not states (`upcoming`, `past` over
   * appointments that are `scheduled`, `completed`…): each choice and the states it lists.
   */
  statusViews: Map<string, string[]>;
  /** The person's own entity (customer, user, patient, guest…). */
  isPerson: boolean;
  /** Numeric fields that hold the money the record has (balances), moved by transfers and payments. */
  balanceFields: string[];
  /**
   * Fields a change draws down (see {@link Draw}): what a record owes, nothing once it is paid; or
   * a balance the person spends, holding at least the least one draw takes (a 1,000-point block).
   */
  drawn: Map<string, { owed: boolean; least: number }>;
  /**
   * The person's fields that total what their records owe (a patient's `outstanding_balance`, the
   * sum of their invoices' `remaining_balance`), by field: lowered with every payment.
   */
  owedTotals: Map<string, { entity: string; field: string }>;
  /** Whether records of it exist before any call (false for what only a tool creates, such as transfers). */
  seeded: boolean;
  /** Records nobody owns, listed for anyone (products, plans, flights, stores), and their children (a therapist's slots): a catalog. */
  catalog: boolean;
  /**
   * The person's fields that list records they own, by the entity listed (`saved_payment_methods`
   * → payment_method): an answer shows the ids of the records held now, never a stored value.
   */
  ownedLists: Map<string, string>;
  /** Ids the tools' descriptions give as examples ("e.g. T07"): no record is given one, as an agent echoing one is refused. */
  exampleIds: Set<string>;
  /**
   * What a verification checks beyond who the person is (a PIN's last four digits, a bank's): the
   * same on all of one person's records, and shown by no answer whose schema does not ask for it.
   */
  secrets: Set<string>;
}

/** An argument that must name an existing record. */
export interface Ref {
  param: string;
  entity: string;
  /** Direction of a money movement or a replacement (`from_account_id`, `to_…`, `new_item_ids`). */
  role: "from" | "to" | "new" | null;
  by: "id" | "email";
  /** It holds a list of ids (`item_ids`). */
  many: boolean;
}

/** An identifier inside an object argument (`flights[].flight_number`), which must name a record too. */
export interface NestedRef {
  param: string;
  key: string;
  entity: string;
}

/** How one tool reads or changes the world. */
export interface ToolModel {
  tool: ToolDefinition;
  kind: ToolKind;
  verb: string;
  entity: string;
  /** The argument naming the record a read_one or change acts on. */
  idParam: string | null;
  /** Whether that argument is an email (the person is looked up by it) rather than an id. */
  idByEmail: boolean;
  /** Other arguments that must name existing records. */
  refs: Ref[];
  /** Identifiers inside object arguments. */
  nested: NestedRef[];
  /** Fields an answer shows (from the output schema or the description), or null for all of them. */
  view: string[] | null;
  /** How the output schema shapes the answers, when it names their fields. */
  answer: AnswerShape | null;
  /** change: arguments written onto the record, argument → field. */
  sets: Map<string, string>;
  /** change: the parts of an address given apart (`address1`, `city`, `zip`), written as the record's one address field. */
  composes: { field: string; parts: string[] } | null;
  /** change: arguments that add to a count the record keeps (`additional_bags` to `checked_bags`), not replace it. */
  adds: Set<string>;
  /** change: a yes-or-no field the tool's name turns on or off (`travel_insurance_add`). */
  toggles: { field: string; on: boolean } | null;
  /** change: what its answer shows that it makes each time (a payment's `receipt_id`), no field of its record. */
  makes: string[];
  /** Date arguments bounded around today ("no more than 14 days in the past"), by parameter. */
  dateWindows: Map<string, DateWindow>;
  statusAfter: string | null;
  /** change: the states of its record it acts in, read from its name and description. */
  requires: Requirement | null;
  /** read_many: arguments that filter on a record field, and the one that caps the count. */
  filters: string[];
  limitParam: string | null;
  /** read_many: a free-text search argument (`query`), matched against the whole record. */
  search: string | null;
  /** read_many: the description asks for one record ("Get the current subscription"): the newest is answered, not a list. */
  single: boolean;
  amountParam: string | null;
  /** create with an amount: the record money leaves (`from_…`, else the first id) and the one it reaches (`to_…`). */
  debit: Ref | null;
  credit: Ref | null;
  /** change: what an argument draws down, refused past what is there (a payment, a redemption). */
  draws: Draw | null;
  check: ArgumentCheck;
  /** Example values in parameter descriptions, by parameter: an agent echoing one is refused. */
  examples: Map<string, string>;
  /** The entity each identifier argument names (the target's and the refs'), for quick lookups. */
  idEntities: Map<string, string>;
  /** read_one that checks details against its record (`verify_account_pin`): the arguments it checks. */
  verifies: string[];
  /** A check of a one-time code: the tool that sends the code first (`send_verification_code` for `check_verification_code`). */
  sentBy: string | null;
  /** change: sends what a check checks (a one-time code), and so writes nothing on its record. */
  sends: boolean;
  /**
   * change: the record of the person's kind it acts on is someone else's, as it names one of the
   * person's own beside it (`remove_user(user_id, transfer_to_user_id)`, `requested_by_user_id`).
   */
  another: boolean;
}

/**
 * A balance a change draws down by an argument: what an invoice still owes, lowered by a payment
 * (`pay_invoice(amount)` → `remaining_balance`), or what the person holds on a record of theirs,
 * spent (`loyalty_points_redeem(points)` → the loyalty account's `points_balance`).
 */
export interface Draw {
  param: string;
  entity: string;
  field: string;
  /** Whether the record drawn on is the one changed; else it is the person's record of `entity`. */
  onTarget: boolean;
  /** What a count spent takes off the changed record's total, where the tool says ("1,000 points = 5.00 off"). */
  worth?: { per: number; off: number };
}

/** "1,000 points = 5.00 off", "100 points are worth $1", "500 miles for 10.00". */
const WORTH =
  /\b(\d{1,3}(?:,\d{3}){1,3}|\d{1,7})\s+([a-z]{1,20})\s*(?:=|are worth|is worth|for|gives?|buys?)\s*[$£€]?\s?(\d{1,7}(?:\.\d{1,2})?)\b/gi;

/** What a count of `unit` (points, miles) is worth off a charge, as a description says it. */
function worthOf(description: string, unit: string): { per: number; off: number } | undefined {
  for (const m of description.matchAll(WORTH)) {
    if (!(m[2] as string).toLowerCase().startsWith(unit.toLowerCase().replace(/s$/, ""))) continue;
    const per = Number((m[1] as string).replace(/,/g, ""));
    const off = Number(m[3]);
    if (per > 0 && off > 0) return { per, off };
  }
  return undefined;
}

/** Whether a description speaks of an entity's records by name ("for an appointment"). */
function mentions(description: string, entity: string): boolean {
  const name = entity.replace(/_/g, " ");
  return new RegExp(`\\b${regexLiteral(name)}s?\\b`, "i").test(description);
}

/** The steps an argument that draws on a balance takes: its `multipleOf`, else a unit or a cent. */
export function drawStep(schema: SchemaFragment): number {
  return schema.multipleOf ?? (schema.type === "integer" ? 1 : 0.01);
}

/** The least an argument that draws on a balance can take: its minimum, else one step of it. */
export function leastDrawn(schema: SchemaFragment): number {
  const step = drawStep(schema);
  return Math.max(
    schema.minimum ?? step,
    schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + step : step,
  );
}

/** Whether a read answers with one record, not a list: a read of one, or a listing whose output schema or description asks for one. */
export function answersOne(tool: ToolModel): boolean {
  return tool.kind === "read_one" || (tool.answer ? tool.answer.list === null : tool.single);
}

/** Words that never name an entity in a tool's name. */
const STOP = new Set([
  "to",
  "for",
  "of",
  "the",
  "a",
  "an",
  "with",
  "from",
  "in",
  "on",
  "at",
  "my",
  "all",
  "details",
  "detail",
  "info",
  "information",
  "id",
  "ids",
  "data",
  "new",
  "existing",
  "current",
  "status",
  "summary",
  "overview",
  "one",
  "request",
  "available",
  "upcoming",
  "recent",
  "past",
  "options",
]);
/** Verbs that make a new record, whatever the call names (`book_room` makes a booking). */
const CREATE_VERBS = new Set([
  "book",
  "reserve",
  "create",
  "open",
  "register",
  "place",
  "file",
  "log",
  "raise",
  "report",
  "request",
  "schedule",
  "issue",
  "generate",
]);
/** Verbs of tools that check details a person gives against a record, without showing them. */
const VERIFY_VERBS = new Set(["verify", "check", "authenticate", "validate"]);
/** Verbs that sign someone new up: their email names nobody yet. */
const SIGN_UP = new Set(["register", "signup", "enroll", "enrol", "invite", "onboard"]);
/** "Returns a port_request_id…": the id a write's answer gives, first named after "returns". */
const RETURNS_ID = /\breturns?\b[^.]{0,80}?\b([a-z][a-z0-9]*(?:_[a-z0-9]+)*)_id\b/i;
/** Verbs of a tool that sends the person something to read back (a one-time code). */
const SENDS = new Set(["send", "resend", "email", "text", "issue", "request", "generate"]);
/** An amount's field: `amount`, `amount_charged`, `refunded_amount`. */
const AMOUNT = /(^|_)amount(_|$)/;
/** Verbs of a change that pays what its record owes. */
const PAY_VERBS = new Set(["pay", "settle", "repay"]);
/** Fields that hold what a record still owes. */
const OWED = /(^|_)(balance|remaining|outstanding|due|owed|owing)(_|$)/;
/** Verbs that change a record in place, even when the call carries an amount. */
const CHANGE_VERBS = new Set([
  "update",
  "change",
  "modify",
  "edit",
  "set",
  "replace",
  "swap",
  "switch",
  "select",
  "assign",
  "adjust",
  "amend",
  "reschedule",
  "rename",
]);
/** What a payment is made with: a means, not the record a call is about. */
export const INSTRUMENT = /(^|_)(payment_method|card|wallet|gift_card|bank_account|payment)$/;
/** What booking something makes, when the spec has such records. */
const BOOKINGS = ["reservation", "booking", "appointment"];
/** Words for a part of a record, not a record of its own: `get_balance(account_id)` reads the account. */
const FIELD_WORDS = new Set([
  "balance",
  "hour",
  "usage",
  "limit",
  "setting",
  "preference",
  "history",
  "activity",
  "address",
  "contact",
  "profile",
  "availability",
  "detail",
  "info",
]);
/** Verbs that read one thing of a record: `get_bill(account_id)` reads the account's bills, not the account. */
const GETTERS = new Set(["get", "show", "view", "fetch", "read", "retrieve", "see"]);
const LIST_VERBS = new Set(["list", "search", "find", "browse", "query", "filter", "lookup"]);
/** Words for the person the agent talks to, whatever the business calls them. */
const PERSON_WORDS = new Set([
  "customer",
  "user",
  "client",
  "member",
  "profile",
  "person",
  "patient",
  "guest",
  "passenger",
  "policyholder",
  "subscriber",
  "tenant",
  "caller",
  "traveler",
  "traveller",
  "student",
  "shopper",
  "buyer",
  "cardholder",
  "insured",
  "consumer",
]);
const FROM = /^(from|source|src|origin|sender|payer|debit)_/;
const TO = /^(to|destination|dest|dst|target|recipient|receiver|credit)_/;
const NEW = /^(new|replacement|target)_/;
/** Record a create leaves when the tool's noun is not a thing (transfer_funds → a transfer). */
const RECORD_OF_VERB: Record<string, string> = {
  transfer: "transfer",
  pay: "payment",
  send: "transfer",
  deposit: "deposit",
  withdraw: "withdrawal",
  book: "booking",
  place: "order",
};
/** Verbs of a create that moves money from one record (and perhaps to another). */
const MONEY_VERBS = new Set(["transfer", "pay", "send", "deposit", "withdraw", "wire", "remit"]);
const MASS_NOUNS = new Set(["fund", "money", "cash", "bill", "amount"]);
/** Suffixes that make a parameter an identifier: `order_id`, `item_ids`, `policy_number`, `plan_code`. */
const ID_SUFFIX = /^(?:(.*)_)?(id|ids|uuid|number|numbers|no|code|codes|ref|reference)$/;
/** Stems whose `_number` or `_code` is a detail of something, not the id of a record. */
const DETAIL_STEMS =
  /^(phone|mobile|telephone|fax|tracking|zip|postal|post|sort|routing|bank_account|account_holder|card|pin|pin_last_four|verification|promo|coupon|discount|tax|vat|iban|licen[cs]e|plate|serial|iccid|imei|seat|house|street|building|flat|unit|apartment|room|otp|security|confirmation|country|area|currency|postcode|transfer_pin|losing_account)$/;
/** Fields a record has before any tool says more, by entity name. */
const DEFAULT_FIELDS: Record<string, string[]> = {
  customer: ["name", "email", "phone", "address"],
  order: ["items", "total", "created_at"],
  item: ["name", "variant", "quantity", "price"],
  account: ["type", "currency"],
  transaction: ["date", "description", "amount", "type"],
  payee: ["name", "type"],
  card: ["type", "last4", "expiry"],
  ticket: ["subject", "description", "created_at"],
  booking: ["date", "created_at"],
  subscription: ["plan", "price", "renewal_date"],
  default: ["name", "created_at"],
};
/** Arguments that page or order a list rather than filter it. */
const PAGING =
  /^(page|page_number|offset|cursor|page_token|next_token|start_after|sort|sort_by|order_by|order|direction|include_\w+)$/;
const SEARCH_PARAMS = /^(query|q|search|search_query|search_term|keyword|keywords|term|text)$/;
const BALANCE_FIELDS = ["balance", "current", "available", "current_balance", "available_balance"];
/** An example in a description: "such as W2378156", "e.g. '#W0000000'", "like ACC 4410 2231". */
const EXAMPLE =
  /(?:such as|e\.g\.,?|for example,?|for instance,?|like|example:|format:?)\s*[`"']?(#?[A-Za-z0-9][A-Za-z0-9_@.#-]*(?: [A-Z0-9]*\d[A-Z0-9]*){0,3})/i;

/** How a tool's name reads: its verb, the nouns it acts on, and the keys it looks up by ("find_user_by_email"). */
interface NameReading {
  verb: string;
  nouns: string[];
  keys: string[];
}

function readName(name: string): NameReading {
  const words = nameWords(name);
  const verb = verbOf(name);
  const by = words.indexOf("by");
  const head = by >= 0 ? words.slice(0, by) : words;
  const keys = by >= 0 ? words.slice(by + 1) : [];
  const nouns = head
    .filter((w) => w !== verb && !STOP.has(w) && !STATUS_WORDS.has(w))
    .map(singular);
  return { verb, nouns, keys };
}

const cache = new WeakMap<Agent, WorldModel>();

/** The entities and tool semantics of a spec, inferred once per agent and shared by all its worlds. */
export class WorldModel {
  readonly entities = new Map<string, EntityModel>();
  readonly tools = new Map<string, ToolModel>();
  readonly person: EntityModel;
  /** Where this spec's people can live: the places whose postal codes its zip patterns accept. */
  readonly places: readonly Place[];
  /**
   * What people of the person's kind share, when a tool acts on one of them for another (the
   * workspace whose users an admin removes): its entity, or null.
   */
  get group(): string | null {
    return this.#group;
  }
  #group: string | null = null;
  /** Words that name entities somewhere in the spec: `_id` stems and the nouns of tool names. */
  readonly #known = new Set<string>();
  /** The entities some tool takes the id of (`port_request` of `port_request_id`). */
  readonly #taken: ReadonlySet<string>;
  readonly #policy: string;
  readonly #where: readonly string[];
  readonly #toolAt: ReadonlyMap<string, number>;
  /** Identifier parameters whose schema no id the world can make passes. */
  readonly #unfit: InputIssue[] = [];

  /** The model of an agent's tools, built on first use. */
  static of(agent: Agent): WorldModel {
    let model = cache.get(agent);
    if (!model) {
      const policy = [
        agent.system_prompt,
        ...agent.rules.map((r) => r.text),
        ...agent.policy.dropped.map((d) => d.text),
      ].join("\n");
      model = new WorldModel(agent.tools, policy, agent.spec.tools.map(parametersPath));
      cache.set(agent, model);
    }
    return model;
  }

  /**
   * @param where Where each tool's parameters sit in the spec (`function.parameters`…), so that a
   * parameter the world cannot serve is named by its path.
   */
  private constructor(tools: readonly ToolDefinition[], policy: string, where: readonly string[]) {
    this.#policy = policy;
    this.#where = where;
    this.#toolAt = new Map(tools.map((t, n) => [t.name, n]));
    const stems = tools.flatMap((t) =>
      Object.keys(t.parameters.properties ?? {})
        .map(snake)
        .filter((p) => /_ids?$/.test(p))
        .map((p) => singular(bareStem(p.replace(/_ids?$/, "")))),
    );
    for (const stem of stems) if (stem) this.#known.add(stem);
    this.#taken = new Set(stems.filter(Boolean));
    for (const tool of tools) for (const noun of readName(tool.name).nouns) this.#known.add(noun);
    this.places = placesFitting(zipPatterns(tools));
    this.person = this.#newEntity(this.#personName(tools), true);
    this.person.fields = new Map((DEFAULT_FIELDS.customer as string[]).map((f) => [f, undefined]));
    for (const tool of tools) this.tools.set(tool.name, this.#analyse(tool));
    this.#finish(tools);
    if (this.#unfit.length > 0) throw new SpecError("agent spec", this.#unfit);
  }

  /** The person's entity: the person word the tools use most for a record (`patient_id`, `get_guest_profile`), else customer. */
  #personName(tools: readonly ToolDefinition[]): string {
    const counts = new Map<string, number>();
    for (const tool of tools) {
      const words = [
        ...readName(tool.name).nouns,
        ...Object.keys(tool.parameters.properties ?? {})
          .map(snake)
          .filter((p) => /_id$/.test(p))
          .map((p) => p.replace(/_id$/, "")),
      ];
      for (const w of words)
        if (PERSON_WORDS.has(w) && w !== "profile" && w !== "member")
          counts.set(w, (counts.get(w) ?? 0) + 1);
    }
    const best = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
    return best?.[0] ?? "customer";
  }

  /** The entity of a name, created on first mention; person words all mean the person's entity. */
  #entity(name: string): EntityModel {
    if (PERSON_WORDS.has(name)) return this.person;
    return this.entities.get(name) ?? this.#newEntity(name, false);
  }

  #newEntity(name: string, isPerson: boolean): EntityModel {
    const entity: EntityModel = {
      name,
      collection: plural(name),
      idField: `${name}_id`,
      idFormat: idFormat(name, []),
      fields: new Map(
        (lookup(DEFAULT_FIELDS, name) ?? DEFAULT_FIELDS.default ?? []).map((f) => [f, undefined]),
      ),
      written: new Map(),
      parent: null,
      statuses: statusesOf(name, [], []),
      statusViews: new Map(),
      isPerson,
      balanceFields: [],
      drawn: new Map(),
      owedTotals: new Map(),
      seeded: true,
      catalog: false,
      ownedLists: new Map(),
      exampleIds: new Set(),
      secrets: new Set(),
    };
    this.entities.set(name, entity);
    return entity;
  }

  /**
   * The record a write makes, when its description says it returns that record's id and another
   * tool takes it ("Returns a port_request_id", read by `get_port_status(port_request_id)`):
   * `port_in_number` makes a port request, not a "number".
   */
  #returned(tool: ToolDefinition, refs: readonly Ref[]): string | null {
    const said = RETURNS_ID.exec(tool.description ?? "");
    if (!said) return null;
    const stem = singular(bareStem(snake(said[1] as string)));
    if (!this.#taken.has(stem) || PERSON_WORDS.has(stem)) return null;
    return refs.some((r) => r.entity === stem) ? null : stem;
  }

  /** The identifier arguments of a tool and the entity each names. */
  #refsOf(tool: ToolDefinition, reading: NameReading): Ref[] {
    const properties = (tool.parameters.properties ?? {}) as Record<string, SchemaFragment>;
    const refs: Ref[] = [];
    for (const [param, schema] of Object.entries(properties)) {
      const key = snake(param);
      const many = schema.type === "array";
      // A list of objects holds the details of records, not their ids.
      if (many && schema.items?.type === "object") continue;
      // A flag or an object can hold no id: a parameter named as one is refused, by name.
      const noId = (entity: string) => {
        const type = JSON.stringify((many ? schema.items : schema)?.type);
        this.#unfit.push({
          path: this.#paramPath(tool, many ? `${param}.items` : param),
          message: `reads as naming ${entity} records, but its type ${type} can hold no identifier; give it type "string" or "integer", or a name that does not end in an id's suffix`,
        });
      };
      const holdsId = scalar(many ? schema.items : schema);
      // An email names the person, unless the call signs someone up (a new patient, a move-in).
      if (
        !many &&
        /^((user|customer|client|member|guest|patient|account)_)?e?mail(_address)?$/.test(key) &&
        !SIGN_UP.has(reading.verb) &&
        !reading.nouns.some((n) => PERSON_WORDS.has(n) && tool.access === "write")
      ) {
        if (holdsId)
          refs.push({ param, entity: this.person.name, role: null, by: "email", many: false });
        else noId(this.person.name);
        continue;
      }
      const id = ID_SUFFIX.exec(key);
      if (!id) continue;
      const suffix = id[2] as string;
      const role = FROM.test(key) ? "from" : TO.test(key) ? "to" : NEW.test(key) ? "new" : null;
      const stem = singular(bareStem(id[1] ?? ""));
      const isId = suffix === "id" || suffix === "ids" || suffix === "uuid";
      // `policy_number` names a policy when policies are something the spec speaks of; `phone_number` never does.
      if (!isId && (stem === "" || DETAIL_STEMS.test(stem) || !this.#known.has(stem))) continue;
      if (reading.keys.length > 0 && !isId && reading.keys.includes(stem)) continue;
      // `member_id` of an insurance card is a detail, not the person: only the person's own word names them.
      if (
        PERSON_WORDS.has(stem) &&
        stem !== this.person.name &&
        !/^(customer|user|client)$/.test(stem)
      )
        continue;
      if (!holdsId) {
        noId(stem === "" ? (reading.nouns[0] ?? reading.verb) : stem);
        continue;
      }
      const entity = this.#entity(stem === "" ? (reading.nouns[0] ?? reading.verb) : stem);
      // A spec that spells ids in camelCase (ticketId) or as numbers (policy_number) gets records keyed the same way.
      if (
        role === null &&
        stem !== "" &&
        entity.idField === `${entity.name}_id` &&
        !entity.isPerson
      ) {
        if (param !== key || !isId) entity.idField = param;
      }
      refs.push({ param, entity: entity.name, role, by: "id", many });
    }
    return refs;
  }

  /** Identifiers inside object arguments (`flights[].flight_number`, `payments[].payment_method_id`). */
  #nestedOf(tool: ToolDefinition): NestedRef[] {
    const out: NestedRef[] = [];
    for (const [param, schema] of Object.entries(
      (tool.parameters.properties ?? {}) as Record<string, SchemaFragment>,
    )) {
      const object = schema.type === "array" ? schema.items : schema;
      if (object?.type !== "object") continue;
      for (const [key, inner] of Object.entries(object.properties ?? {})) {
        const id = ID_SUFFIX.exec(snake(key));
        if (!id || !scalar(inner)) continue;
        const stem = singular(bareStem(id[1] ?? ""));
        const isId = id[2] === "id" || id[2] === "uuid";
        if (!stem || (!isId && (DETAIL_STEMS.test(stem) || !this.#known.has(stem)))) continue;
        if (PERSON_WORDS.has(stem)) continue;
        out.push({ param, key, entity: this.#entity(stem).name });
      }
    }
    return out;
  }

  #analyse(tool: ToolDefinition): ToolModel {
    const reading = readName(tool.name);
    const { verb, nouns } = reading;
    const noun = nouns[0] ?? verb;
    const properties = (tool.parameters.properties ?? {}) as Record<string, SchemaFragment>;
    const refs = this.#refsOf(tool, reading);
    const model: ToolModel = {
      tool,
      kind: "read_one",
      verb,
      entity: noun,
      idParam: null,
      idByEmail: false,
      refs: [],
      nested: this.#nestedOf(tool),
      view: null,
      answer: null,
      sets: new Map(),
      composes: null,
      adds: new Set(),
      toggles: null,
      makes: [],
      dateWindows: dateWindowsOf(tool),
      statusAfter: null,
      requires: null,
      filters: [],
      search: null,
      single: false,
      limitParam:
        Object.keys(properties).find((p) =>
          /^(limit|max_results|count|page_size|top|per_page)$/.test(snake(p)),
        ) ?? null,
      amountParam: Object.keys(properties).find((p) => /(^|_)amount$/.test(snake(p))) ?? null,
      debit: null,
      credit: null,
      draws: null,
      check: withEither(argumentCheck(tool.parameters), eitherOf(tool)),
      examples: examplesOf(properties),
      idEntities: new Map(),
      verifies: [],
      sentBy: null,
      sends: false,
      another: false,
    };
    this.#target(model, reading, refs);
    model.answer = answerShape(tool, model.kind === "read_many");
    model.view = model.answer
      ? Object.keys(model.answer.record.fields)
      : (viewOf(tool) ?? (model.kind === "read_one" ? namedView(tool, model.entity) : null));
    model.refs = refs.filter((r) => r.param !== model.idParam || r.by === "email");
    model.idByEmail = refs.some((r) => r.param === model.idParam && r.by === "email");
    if (model.idParam && !model.idByEmail) model.idEntities.set(model.idParam, model.entity);
    for (const ref of model.refs) if (ref.by === "id") model.idEntities.set(ref.param, ref.entity);
    if (model.kind === "change") {
      const named = nameWords(tool.name).includes(model.entity.split("_").at(-1) as string);
      model.statusAfter =
        lookup(STATUS_AFTER, verb) ??
        (named ? lookup(STATUS_AFTER_NAMED, verb) : undefined) ??
        null;
      // A bare `amount` is written as what the change did with it: the field the answer shows it
      // in (`amount_charged`), else `refunded_amount`. A named one (`monthly_amount`) keeps its name.
      const shown = Object.keys(model.answer?.record.fields ?? {}).filter((f) => AMOUNT.test(f));
      for (const param of Object.keys(properties)) {
        if (param === model.idParam || refs.some((r) => r.param === param && !r.many)) continue;
        model.sets.set(
          param,
          param === model.amountParam && snake(param) === "amount"
            ? shown.length === 1
              ? (shown[0] as string)
              : `${model.statusAfter ?? verb}_amount`
            : snake(param),
        );
      }
    }
    // Money moves only when the tool moves it: setting up a direct debit or a payment plan, or
    // issuing a credit, names an amount without paying it.
    if (model.kind === "create" && model.amountParam && MONEY_VERBS.has(verb)) {
      const accounts = model.refs.filter(
        (r) => r.by === "id" && !r.many && !this.#isPerson(r.entity),
      );
      const roled = accounts.some((r) => r.role === "from" || r.role === "to");
      model.debit =
        accounts.find((r) => r.role === "from") ?? (roled ? null : (accounts[0] ?? null));
      model.credit = accounts.find((r) => r.role === "to") ?? null;
    }
    if (model.kind === "read_one" && VERIFY_VERBS.has(verb))
      model.verifies = Object.keys(properties).filter(
        (p) => p !== model.idParam && !refs.some((r) => r.param === p),
      );
    if (model.kind === "read_many") {
      model.search = Object.keys(properties).find((p) => SEARCH_PARAMS.test(snake(p))) ?? null;
      model.single = readsOneRecord(tool.description ?? "");
      model.filters = Object.keys(properties).filter(
        (p) =>
          p !== model.limitParam &&
          p !== model.search &&
          !PAGING.test(snake(p)) &&
          !refs.some((r) => r.param === p),
      );
    }
    return model;
  }

  /** Decides the entity a tool acts on, the argument naming it, and so the tool's kind. */
  #target(model: ToolModel, reading: NameReading, refs: Ref[]): void {
    const { tool, verb } = model;
    const { nouns } = reading;
    if (tool.role === "handoff") {
      model.kind = "handoff";
      model.entity = this.#entity("handoff").name;
      return;
    }
    if (tool.role === "utility") {
      model.kind = "utility";
      model.entity = this.#entity("note").name;
      return;
    }
    const single = refs.filter((r) => r.by === "id" && !r.many && r.role !== "new");
    const nounsOf = (r: Ref) =>
      nouns.includes(r.entity) ||
      nouns.join("_") === r.entity ||
      nouns.some((n) => r.entity.startsWith(`${n}_`) || r.entity.endsWith(`_${n}`));
    const rank = (r: Ref) =>
      /(^|_)(id|uuid)$/.test(snake(r.param)) ? 0 : /number|no$/.test(snake(r.param)) ? 1 : 2;
    let own = single.find((r) => nounsOf(r) && !this.#isPerson(r.entity));
    const others = single.filter((r) => !this.#isPerson(r.entity));
    // change_plan(line_id, plan_code): the plan is what the line changes to, not the record changed.
    const better =
      own && tool.access === "write"
        ? others.find((r) => r !== own && rank(r) < rank(own as Ref))
        : undefined;
    if (better) own = better;
    const personRef =
      single.find((r) => this.#isPerson(r.entity)) ?? refs.find((r) => r.by === "email");
    const firstNoun = nameWords(tool.name).find((w) => w !== verb && !STOP.has(w));
    const listing =
      tool.access === "read" &&
      (LIST_VERBS.has(verb) ||
        (firstNoun !== undefined &&
          singular(firstNoun) !== firstNoun &&
          !STATUS_WORDS.has(firstNoun)));
    const things = nouns.filter((n) => !PERSON_WORDS.has(n));
    const compound = things.join("_") || nouns[0] || verb;
    const personNoun = nouns.some((n) => PERSON_WORDS.has(n));
    // A getter of something no argument names reads that thing of the record it is given: `get_bill(account_id)`.
    const output = Object.keys(tool.output_schema?.properties ?? {});
    const distinct =
      tool.access === "read" &&
      GETTERS.has(verb) &&
      things.length > 0 &&
      !things.every((t) => FIELD_WORDS.has(t)) &&
      !refs.some((r) => things.includes(r.entity) || r.entity === compound) &&
      // An answer that carries the argument's id is that record seen in part.
      !refs.some(
        (r) => output.includes(r.param) && !output.some((o) => snake(o) === `${compound}_id`),
      );
    const means = others.filter((r) => !INSTRUMENT.test(r.entity));
    // change_user_role(workspace_id, user_id, new_role): the name names the person its `user_id`
    // names, so that person's record changes, not the workspace that holds it.
    const namedPerson =
      tool.access === "write" && !CREATE_VERBS.has(verb)
        ? single.find(
            (r) =>
              this.#isPerson(r.entity) &&
              nouns.some((n) => PERSON_WORDS.has(n) && snake(r.param) === `${n}_id`),
          )
        : undefined;
    if (own && !listing) {
      model.entity = own.entity;
      model.idParam = own.param;
    } else if (listing || distinct) {
      model.entity = this.#entity(
        personNoun && things.length === 0 ? this.person.name : compound,
      ).name;
    } else if (tool.access === "write" && CREATE_VERBS.has(verb)) {
      const booked =
        verb === "book" || verb === "reserve"
          ? BOOKINGS.find(
              (b) => this.#known.has(b) && b !== compound && !refs.some((r) => r.entity === b),
            )
          : undefined;
      model.entity = this.#entity(
        booked ??
          this.#returned(tool, refs) ??
          (MASS_NOUNS.has(compound) || compound === verb
            ? (lookup(RECORD_OF_VERB, verb) ?? compound)
            : compound),
      ).name;
    } else if (namedPerson) {
      model.entity = namedPerson.entity;
      model.idParam = namedPerson.param;
    } else if (
      tool.access === "write" &&
      means.length === 1 &&
      // The record a write acts on is one it must be told, or one it says it acts on ("Send an
      // intake form for an appointment"): an optional therapist of `waitlist_add(patient_id,
      // therapist_id?)` is a wish of the new entry, not a record changed.
      ((tool.parameters.required ?? []).includes((means[0] as Ref).param) ||
        mentions(tool.description ?? "", (means[0] as Ref).entity)) &&
      (!model.amountParam || CHANGE_VERBS.has(verb))
    ) {
      model.entity = (means[0] as Ref).entity;
      model.idParam = (means[0] as Ref).param;
    } else if (tool.access === "read" && others.length === 1) {
      model.entity = (others[0] as Ref).entity;
      model.idParam = (others[0] as Ref).param;
    } else if (
      others.length === 0 &&
      personRef &&
      (tool.access === "read" || personNoun || nouns.length === 0 || CHANGE_VERBS.has(verb))
    ) {
      model.entity = this.person.name;
      model.idParam = personRef.param;
    } else if (tool.access === "write") {
      const name =
        this.#returned(tool, refs) ??
        (MASS_NOUNS.has(compound) || compound === verb
          ? (lookup(RECORD_OF_VERB, verb) ?? compound)
          : compound);
      model.entity = this.#entity(name).name;
    } else {
      model.entity = this.#entity(
        personNoun && things.length === 0 ? this.person.name : compound,
      ).name;
    }
    model.kind =
      tool.access === "read"
        ? model.idParam
          ? "read_one"
          : "read_many"
        : model.idParam
          ? "change"
          : "create";
  }

  /** Fields, parents, statuses, catalogs, balances and id shapes, once every tool has been read. */
  #finish(tools: readonly ToolDefinition[]): void {
    const browsable = new Set(
      [...this.tools.values()]
        .filter(
          (t) =>
            t.kind === "read_many" &&
            t.refs.length === 0 &&
            !t.filters.some((f) => PERSONAL_DETAILS.has(identityKey(snake(f)) ?? "")),
        )
        .map((t) => t.entity),
    );
    for (const model of this.tools.values()) {
      if (model.kind === "utility" || model.kind === "handoff") continue;
      const entity = this.entities.get(model.entity) as EntityModel;
      const output = model.answer?.record.fields;
      const properties = (model.tool.parameters.properties ?? {}) as Record<string, SchemaFragment>;
      const wrote = model.kind === "create" || model.kind === "change";
      for (const field of model.view ?? []) {
        // What a write says of itself (`created`, `result`, `rejection_reason`) is no field of its record.
        if (wrote && isOutcomeField(field)) continue;
        if (field !== entity.idField)
          entity.fields.set(
            field,
            output?.[field] ??
              entity.fields.get(field) ??
              saidBoolean(model.tool.description, field),
          );
      }
      for (const param of model.filters) entity.fields.set(snake(param), properties[param]);
      // What a verification checks is something the record holds (a PIN's last four digits).
      for (const param of model.verifies)
        if (!entity.fields.has(snake(param)) || identityKey(snake(param)) === null) {
          entity.fields.set(snake(param), properties[param]);
          if (identityKey(snake(param)) === null) entity.secrets.add(snake(param));
        }
      // A field a write takes as an argument has the argument's schema (an enum, a pattern).
      if (model.kind === "create" || model.kind === "change")
        for (const [param, schema] of Object.entries(properties)) {
          const field = snake(param);
          if (entity.fields.has(field) && entity.fields.get(field) === undefined)
            entity.fields.set(field, schema);
        }
      // A read scoped by another record reads its children (a line's usage, an account's bills); a
      // change that also names an `_id` record acts on that record's child (an order's item). What
      // is paid with, or chosen from a list anyone can browse (a plan, a store), owns nothing.
      const parent =
        model.kind === "create"
          ? undefined
          : model.refs.find(
              (r) =>
                r.by === "id" &&
                !r.many &&
                r.entity !== entity.name &&
                !this.#isPerson(r.entity) &&
                r.role === null &&
                (model.kind !== "change" ||
                  (/(^|_)id$/.test(snake(r.param)) &&
                    !INSTRUMENT.test(r.entity) &&
                    !browsable.has(r.entity) &&
                    // …and only a record that shows these in a list (an order's `items`) holds them.
                    (this.entities.get(r.entity) as EntityModel).fields.has(entity.collection))),
            );
      if (parent && !entity.parent && !entity.isPerson)
        entity.parent = {
          entity: parent.entity,
          field: (this.entities.get(parent.entity) as EntityModel).idField,
        };
      // Ids a change takes in a list belong to its record (an order's `item_ids`): items are the order's children.
      if (model.kind === "change")
        for (const ref of model.refs) {
          const child = this.entities.get(ref.entity) as EntityModel;
          if (ref.many && ref.role === null && !child.parent && !child.isPerson && child !== entity)
            child.parent = { entity: entity.name, field: entity.idField };
        }
      for (const ref of [model.debit, model.credit])
        if (ref) (this.entities.get(ref.entity) as EntityModel).balanceFields.push("balance");
    }
    // Choices a read's description gives a field it shows ("product (motor/home)"), where no
    // schema, argument or other read gave the field one.
    for (const model of this.tools.values()) {
      if (model.kind !== "read_one" && model.kind !== "read_many") continue;
      const entity = this.entities.get(model.entity) as EntityModel;
      for (const field of model.view ?? []) {
        if (!entity.fields.has(field) || entity.fields.get(field) !== undefined) continue;
        const said = saidChoices(model.tool.description, field);
        // "address (street, city, postcode)" names the parts it holds, not choices of it.
        const parts = said?.enum?.some((c) => typeof c === "string" && entity.fields.has(c));
        if (said && !parts) entity.fields.set(field, said);
      }
    }
    for (const model of this.tools.values()) {
      for (const [param, example] of model.examples) {
        const named = model.idEntities.get(param);
        if (named) this.entities.get(named)?.exampleIds.add(example);
      }
      const entity = this.entities.get(model.entity) as EntityModel;
      const properties = (model.tool.parameters.properties ?? {}) as Record<string, SchemaFragment>;
      model.composes = composedAddress(entity, model);
      for (const param of model.composes?.parts ?? []) model.sets.delete(param);
      for (const [param, field] of model.sets) {
        const added = addedField(entity, field);
        if (added) model.adds.add(param);
        const resolved =
          added ?? replacedField(entity, field, model.sets) ?? fieldFor(entity, field);
        model.sets.set(param, resolved);
        if (!entity.fields.has(resolved)) entity.written.set(resolved, properties[param]);
      }
      if (model.kind === "change") model.toggles = toggledField(entity, model);
      // What a tool turns on or off holds a yes or a no, whatever its name would suggest.
      if (model.toggles && entity.fields.get(model.toggles.field)?.type === undefined)
        entity.fields.set(model.toggles.field, { type: "boolean" });
    }
    this.#dropGuessedFields();
    this.#madeByWrites();
    const used = (entity: EntityModel) =>
      [...this.tools.values()].some(
        (t) =>
          (t.entity === entity.name && !["create", "handoff", "utility"].includes(t.kind)) ||
          t.refs.some((r) => r.entity === entity.name) ||
          t.nested.some((r) => r.entity === entity.name),
      );
    for (const entity of this.entities.values()) {
      // Records only a create or a hand-off makes (transfers, payments, hand-offs) start empty; anything read, listed, changed or named by id is seeded.
      if (!used(entity)) entity.seeded = false;
      entity.catalog = !entity.isPerson && entity.parent === null && this.#isCatalog(entity);
    }
    const prefixes = new Set<string>();
    for (const entity of this.entities.values()) {
      entity.fields.delete("status");
      entity.fields.delete(entity.idField);
      const declared = BALANCE_FIELDS.filter((f) => entity.fields.has(f));
      if (declared.length > 0) entity.balanceFields = declared;
      else if (entity.balanceFields.length > 0) entity.balanceFields = ["balance"];
      for (const f of entity.balanceFields)
        if (!entity.fields.has(f)) entity.fields.set(f, { type: "number" });
      const { format, params } = this.#idFormatOf(
        entity,
        tools,
        uniquePrefix(entity.name, prefixes),
      );
      entity.idFormat = format;
      if (format.unfit !== undefined)
        this.#unfit.push(...unfitParameters(entity.name, format, params));
      // Ids from a closed list (a `plan_code` enum) are a catalog's: the records are the list.
      if (entity.idFormat.values && !entity.isPerson && entity.parent === null)
        entity.catalog = true;
    }
    // What belongs to a catalog's record is nobody's either: a therapist's open slots.
    for (const entity of this.entities.values()) {
      let parent = entity.parent && this.entities.get(entity.parent.entity);
      for (let depth = 0; parent && !parent.catalog && depth < this.entities.size; depth++)
        parent = parent.parent && this.entities.get(parent.parent.entity);
      if (parent?.catalog) entity.catalog = true;
    }
    this.#borrowClosedSets();
    this.#statuses();
    this.#ownedLists();
    this.#draws();
    this.#others();
    this.#senders();
  }

  /**
   * A check whose tool a sending tool mirrors, word for word but its verb
   * (`check_verification_code`, `send_verification_code`), checks what that tool sends: the code
   * is sent before the person can give it.
   */
  #senders(): void {
    const object = (t: ToolModel) =>
      snake(t.tool.name)
        .split("_")
        .filter((w) => w !== t.verb)
        .join("_");
    for (const check of this.tools.values()) {
      if (check.verifies.length === 0) continue;
      const sender = [...this.tools.values()].find(
        (t) =>
          t !== check &&
          (t.kind === "change" || t.kind === "create") &&
          SENDS.has(t.verb) &&
          object(t) === object(check),
      );
      check.sentBy = sender?.tool.name ?? null;
      if (sender) sender.sends = true;
    }
  }

  /**
   * Changes to a record of the person's kind that name a second one (a requester, a recipient)
   * act on someone else: an admin's colleague. What such a change is scoped by (the workspace)
   * is what the two share.
   */
  #others(): void {
    for (const model of this.tools.values()) {
      if (model.kind !== "change" || model.entity !== this.person.name || !model.idParam) continue;
      if (!model.refs.some((r) => r.entity === this.person.name && r.by === "id" && !r.many))
        continue;
      model.another = true;
      const shared = model.refs.find((r) => {
        const entity = this.entities.get(r.entity) as EntityModel;
        return r.by === "id" && !r.many && !entity.isPerson && !entity.catalog && !entity.parent;
      });
      this.#group ??= shared?.entity ?? null;
    }
  }

  /**
   * What each change draws down: a payment lowers what its record owes, and a count the person
   * spends (`points`) lowers their balance of it on a record of theirs (`points_balance`).
   */
  #draws(): void {
    const numeric = (schema: SchemaFragment | undefined) =>
      schema === undefined || schema.type === "number" || schema.type === "integer";
    for (const model of this.tools.values()) {
      if (model.kind !== "change") continue;
      const entity = this.entities.get(model.entity) as EntityModel;
      if (model.amountParam && PAY_VERBS.has(model.verb)) {
        const owed = [...entity.fields].find(([f, schema]) => OWED.test(f) && numeric(schema));
        if (owed) {
          model.draws = {
            param: model.amountParam,
            entity: entity.name,
            field: owed[0],
            onTarget: true,
          };
          entity.drawn.set(owed[0], { owed: true, least: 0 });
          const total = [...this.person.fields].find(
            ([f, schema]) => OWED.test(f) && numeric(schema) && !this.person.owedTotals.has(f),
          );
          if (total && !entity.isPerson && !entity.catalog)
            this.person.owedTotals.set(total[0], { entity: entity.name, field: owed[0] });
          continue;
        }
      }
      for (const [param, schema] of Object.entries(propertiesOf(model))) {
        if (param === model.amountParam || !numeric(schema) || schema.type === undefined) continue;
        const spent = snake(param);
        const names = [`${spent}_balance`, `available_${spent}`, `${spent}_available`];
        const holder = [...this.entities.values()].find(
          (e) =>
            e !== entity &&
            !e.isPerson &&
            !e.catalog &&
            e.seeded &&
            names.some((n) => e.fields.has(n) && numeric(e.fields.get(n))),
        );
        if (!holder) continue;
        const field = names.find((n) => holder.fields.has(n)) as string;
        const worth = worthOf(model.tool.description, spent);
        model.draws = {
          param,
          entity: holder.name,
          field,
          onTarget: false,
          ...(worth ? { worth } : {}),
        };
        const least = Math.max(holder.drawn.get(field)?.least ?? 0, leastDrawn(schema));
        holder.drawn.set(field, { owed: false, least });
        break;
      }
    }
  }

  /**
   * An entity whose reads all say what they show, one of them by its output schema, holds what the
   * tools name, not the fields guessed for its name (a bank account's `type` on an energy
   * supplier's account). Only `created_at` stays: it orders lists, and is shown only where named.
   * Any entity loses a guessed `type` when the tools name its kind another way (`account_type`).
   */
  #dropGuessedFields(): void {
    const named = new Map<string, Set<string>>();
    const described = new Set<string>();
    // A read that shows every field (no schema, no list in its description) shows the guesses too.
    const shownWhole = new Set<string>();
    for (const model of this.tools.values()) {
      const fields = named.get(model.entity) ?? new Set<string>();
      for (const field of model.view ?? []) fields.add(field);
      for (const param of [...model.filters, ...model.verifies]) fields.add(snake(param));
      for (const field of model.sets.values()) fields.add(field);
      named.set(model.entity, fields);
      if (model.kind !== "read_one" && model.kind !== "read_many") continue;
      if (model.answer) described.add(model.entity);
      if (model.view === null) shownWhole.add(model.entity);
    }
    for (const entity of this.entities.values()) {
      if (entity.isPerson) continue;
      const guessed = lookup(DEFAULT_FIELDS, entity.name) ?? DEFAULT_FIELDS.default ?? [];
      // A kind the tools name (`account_type`: consumer or business) is the record's kind: a
      // guessed `type` beside it (checking or savings) would be a second, invented one.
      if (
        guessed.includes("type") &&
        entity.fields.get("type") === undefined &&
        !named.get(entity.name)?.has("type") &&
        entity.fields.has(`${entity.name}_type`)
      )
        entity.fields.delete("type");
      if (!described.has(entity.name) || shownWhole.has(entity.name)) continue;
      for (const field of guessed)
        if (
          field !== "created_at" &&
          entity.fields.get(field) === undefined &&
          !named.get(entity.name)?.has(field)
        )
          entity.fields.delete(field);
    }
  }

  /**
   * A field known only by name takes the closed set of the parameter of that name (a reservation's
   * `room_type` from `book_room(room_type: enum […])`): a record holds what the tools accept. A
   * parameter of a tool on the field's own entity comes first.
   */
  #borrowClosedSets(): void {
    const closed = (entity: string | null) => {
      const sets = new Map<string, SchemaFragment>();
      for (const model of this.tools.values()) {
        if (entity !== null && model.entity !== entity) continue;
        for (const [param, schema] of Object.entries(propertiesOf(model)))
          if (Array.isArray(schema.enum) && schema.enum.length > 0 && !sets.has(snake(param)))
            sets.set(snake(param), schema);
      }
      return sets;
    };
    const anywhere = closed(null);
    for (const entity of this.entities.values()) {
      const own = closed(entity.name);
      for (const [field, schema] of entity.fields) {
        const set = own.get(field) ?? anywhere.get(field);
        if (set && saysNoMoreThan(schema, set))
          entity.fields.set(field, { ...schema, ...closedPart(set) });
        else if (schema !== undefined) {
          // Inside a list of objects too: the rooms of an availability answer have a `room_type`.
          const nested = withClosedSets(schema, anywhere);
          if (nested !== schema) entity.fields.set(field, nested);
        }
      }
    }
  }

  /** Which of the person's fields list the records they own, read from the fields' names. */
  #ownedLists(): void {
    const person = this.person;
    const owned = [...this.entities.values()].filter(
      (e) => !e.isPerson && e.parent === null && !e.catalog && e.seeded,
    );
    for (const [field, schema] of person.fields) {
      // A detail of the person (their `address`) is theirs to state, not a list of records.
      if ((schema !== undefined && schema.type !== "array") || identityKey(field) !== null)
        continue;
      const bare = field.replace(/^(saved|linked|registered|stored|active|all|my)_/, "");
      // A list says so: the records' plural (`cards`), or a name with a list's ending (`reservation_numbers`).
      const listed = /_(list|ids|numbers|codes)$/.test(bare)
        ? bare.replace(/_(list|ids|numbers|codes)$/, "")
        : null;
      const entity = owned.find((e) =>
        listed === null ? bare === e.collection : listed === e.name || listed === e.collection,
      );
      if (entity) person.ownedLists.set(field, entity.name);
    }
  }

  /**
   * Whether an entity is a catalog: some tool browses it with no person in the call (list_products,
   * search_flights) and no tool ties it to a person.
   */
  #isCatalog(entity: EntityModel): boolean {
    const tools = [...this.tools.values()];
    const aboutPerson = (t: ToolModel) =>
      t.refs.some((r) => this.#isPerson(r.entity)) ||
      (t.idParam !== null && t.entity === this.person.name);
    // Records filtered or shown by a person's details (a phone, a name, a date of birth) are someone's: not a catalog.
    const personal = (field: string) =>
      field !== "name" && PERSONAL_DETAILS.has(identityKey(snake(field)) ?? "");
    // A phone among a record's fields is a place's as well (a store's, a clinic's); found by one, it is someone's.
    const byPerson =
      tools.some((t) => t.entity === entity.name && t.filters.some(personal)) ||
      [...entity.fields.keys()].some((f) => personal(f) && identityKey(snake(f)) !== "phone");
    if (byPerson) return false;
    const browsed = tools.some(
      (t) =>
        t.kind === "read_many" &&
        t.entity === entity.name &&
        !aboutPerson(t) &&
        t.refs.length === 0,
    );
    // Making something for a person from a list (booking a room at a property) does not make the list theirs.
    const tied = tools.some(
      (t) =>
        aboutPerson(t) &&
        t.kind !== "create" &&
        (t.entity === entity.name || t.refs.some((r) => r.entity === entity.name && !r.many)),
    );
    return browsed && !tied;
  }

  /**
   * What a change makes beside its record and only its answer shows (a payment's `receipt_id`):
   * no field the record holds before the change, and a new one each time it is made.
   */
  #madeByWrites(): void {
    const idFields = new Set([...this.entities.values()].map((e) => e.idField));
    const reads = [...this.tools.values()].filter(
      (t) => t.kind === "read_one" || t.kind === "read_many",
    );
    for (const model of this.tools.values()) {
      if (model.kind !== "change") continue;
      const entity = this.entities.get(model.entity) as EntityModel;
      for (const field of model.view ?? []) {
        if (!MADE_ID.test(field) || idFields.has(field) || !entity.fields.has(field)) continue;
        if (reads.some((t) => t.entity === entity.name && t.view?.includes(field))) continue;
        model.makes.push(field);
        entity.fields.delete(field);
      }
    }
  }

  /** Each entity's states (schema enums, the words tools and policy use, defaults), and what each change needs of them. */
  #statuses(): void {
    const sentences = this.#policy
      .split(/(?<=[.!?])\s+/)
      .map((sentence) => ({ sentence, lower: sentence.toLowerCase() }));
    for (const entity of this.entities.values()) {
      const enums = new Set<string>();
      const mentioned = new Set<string>();
      // States a sentence about status lists in quotes: "statuses are 'scheduled', 'completed'…".
      const listed = new Set<string>();
      const filters: { choices: string[]; description: string }[] = [];
      const forms = [entity.name, entity.collection].map((w) => w.replace(/_/g, " "));
      for (const model of this.tools.values()) {
        const status = model.answer?.record.fields.status;
        // A write's output is what it made or did, not the record it acted on: only reads show a record's states.
        const reads = model.kind === "read_one" || model.kind === "read_many";
        if (reads && model.entity === entity.name && Array.isArray(status?.enum))
          for (const v of status.enum) if (typeof v === "string") enums.add(statusKey(v));
        // "…: product, status (active, lapsed, cancelled), cover level": the states, all of them.
        if (reads && model.entity === entity.name)
          for (const v of saidChoices(model.tool.description, "status")?.enum ?? [])
            if (typeof v === "string") enums.add(statusKey(v));
        enums.delete("all");
        enums.delete("any");
        const statusParam = (
          model.tool.parameters.properties as Record<string, SchemaFragment> | undefined
        )?.status;
        if (
          model.entity === entity.name &&
          model.kind === "read_many" &&
          Array.isArray(statusParam?.enum)
        )
          filters.push({
            choices: statusParam.enum
              .filter((v): v is string => typeof v === "string" && !/^(all|any)$/i.test(v))
              .map(statusKey),
            description: statusParam.description ?? "",
          });
        if (model.entity !== entity.name) continue;
        for (const w of nameWords(model.tool.name)) if (STATUS_WORDS.has(w)) mentioned.add(w);
        for (const sentence of model.tool.description.split(/(?<=[.!?;])\s+/)) {
          for (const w of statusesSaid(sentence, forms)) mentioned.add(w);
          for (const w of statesListed(sentence)) listed.add(w);
        }
      }
      // "Each order can be in status pending, processed, delivered, or cancelled."
      for (const { sentence, lower } of sentences) {
        stillWorking("reading the records' statuses from the policy");
        if (!forms.some((f) => lower.includes(f))) continue;
        for (const w of statusesSaid(sentence, forms)) mentioned.add(w);
        for (const w of statesListed(sentence)) listed.add(w);
      }
      // A filter none of whose choices is a state the spec lists is a view of the states.
      const views = filters.filter(
        (f) => listed.size >= 2 && !f.choices.some((c) => listed.has(c) || enums.has(c)),
      );
      for (const f of filters) if (!views.includes(f)) for (const c of f.choices) enums.add(c);
      if (enums.size === 0 && views.length > 0) for (const w of listed) enums.add(w);
      entity.statuses = statusesOf(entity.name, [...enums], [...mentioned]);
      entity.statusViews = statusViewsOf(views, entity.statuses);
    }
    for (const model of this.tools.values()) {
      if (model.kind !== "change") continue;
      const entity = this.entities.get(model.entity) as EntityModel;
      const vocabulary = new Set([...entity.statuses.usable, ...entity.statuses.terminal]);
      const forms = [entity.name, entity.collection].map((w) => w.replace(/_/g, " "));
      model.requires = requirementOf(
        nameWords(model.tool.name),
        model.tool.description,
        vocabulary,
        forms,
      );
      if (model.statusAfter) {
        const spelled = [...vocabulary].find(
          (s) =>
            s.replace(/l+ed$/, "led") === (model.statusAfter as string).replace(/l+ed$/, "led"),
        );
        if (spelled) model.statusAfter = spelled;
      }
    }
  }

  /** The id shape of an entity, from every parameter that names one of its records. */
  #idFormatOf(
    entity: EntityModel,
    tools: readonly ToolDefinition[],
    prefix: string,
  ): { format: IdFormat; params: IdParameter[] } {
    const params: IdParameter[] = [];
    for (const tool of tools) {
      const model = this.tools.get(tool.name) as ToolModel;
      const root = tool.parameters as Record<string, unknown>;
      // Each parameter naming a record is checked, whole schema and all, against the ids made for it.
      const checked = (schema: SchemaFragment, path: string, extra: IdParameter = {}) => {
        const check = valueCheck(schema as Record<string, unknown>, root);
        const param: IdParameter = { ...schema, ...extra, at: path };
        if (check) param.check = check;
        params.push(param);
      };
      for (const [param, schema] of Object.entries(
        (tool.parameters.properties ?? {}) as Record<string, SchemaFragment>,
      )) {
        const ref = model.refs.find((r) => r.param === param);
        const namesIt = ref
          ? ref.by === "id" && ref.entity === entity.name
          : model.idParam === param && model.entity === entity.name && !model.idByEmail;
        const path = this.#paramPath(tool, param);
        if (namesIt && ref?.many && schema.items)
          checked(schema.items, `${path}.items`, {
            description: schema.description ?? schema.items.description,
          });
        else if (namesIt && ref?.many) params.push({ description: schema.description, at: path });
        else if (namesIt) checked(schema, path);
        const object = schema.type === "array" ? schema.items : schema;
        for (const nested of model.nested)
          if (nested.param === param && nested.entity === entity.name) {
            const inner = object?.properties?.[nested.key];
            const within = `${path}${object === schema ? "" : ".items"}.properties.${nested.key}`;
            if (inner) checked(inner, within);
          }
      }
    }
    for (const sentence of this.#policy.split(/(?<=[.!?])\s+/)) {
      if (
        new RegExp(
          `\\b${regexLiteral(entity.name).replace(/_/g, " ")}s? (id|number|code)s?\\b`,
          "i",
        ).test(sentence)
      )
        params.push({ description: sentence });
    }
    return { format: idFormat(entity.name, params, prefix), params };
  }

  /** Where a tool's parameter is in the spec: `tools[2].function.parameters.properties.order_id`. */
  #paramPath(tool: ToolDefinition, param: string): string {
    const n = this.#toolAt.get(tool.name) ?? 0;
    return `tools[${n}].${this.#where[n] ?? "parameters"}.properties.${param}`;
  }

  #isPerson(entity: string): boolean {
    return this.entities.get(entity)?.isPerson === true;
  }
}

/** The name of a thing's id or number (`receipt_id`, `confirmation_number`, `payment_ref`). */
const MADE_ID = /(^|_)(id|number|no|ref|reference)$/;

/**
 * The states a sentence names for a kind of record: the words after "status" ("in status
 * 'pending', 'processed' or 'delivered'"), quoted words in a sentence about status, and status
 * words used of the record ("an active line", "a pending order").
 */
function statusesSaid(sentence: string, forms: readonly string[]): string[] {
  const found = new Set<string>();
  if (/\bstatus(es)?\b|\bstate\b/i.test(sentence)) {
    for (const q of sentence.matchAll(QUOTED_STATE)) found.add(statusKey(q[1] as string));
    const list =
      /\b(?:status(?:es)?|states?)\b(?: (?:is|are|can be|of|:))?\s*((?:[a-z_]+(?:,\s*|,?\s+or\s+|,?\s+and\s+)?){1,8})/i.exec(
        sentence,
      );
    for (const w of (list?.[1] ?? "").split(/,\s*|\s+or\s+|\s+and\s+/))
      if (STATUS_WORDS.has(statusKey(w))) found.add(statusKey(w));
  }
  const lower = sentence.toLowerCase();
  for (const form of forms) for (const word of wordsBefore(lower, form)) found.add(word);
  return [...found];
}

/**
 * The status words said just before a form of a record's name, as `\b<word> <form>` finds them
 * (a word's `_` standing for a space, `_` or `-`), read at each place the form appears rather than
 * by a pattern per word run over the whole sentence: a policy naming hundreds of kinds of record
 * in long sentences made that pattern work hundreds of times over every sentence.
 */
function* wordsBefore(lower: string, form: string): Generator<string> {
  if (form === "") return;
  for (let at = lower.indexOf(form); at !== -1; at = lower.indexOf(form, at + 1)) {
    const space = at - 1;
    if (space < 0 || lower[space] !== " ") continue;
    for (const word of STATUS_WORDS) {
      const start = space - word.length;
      if (start < 0 || (start > 0 && /\w/.test(lower[start - 1] as string))) continue;
      let same = true;
      for (let k = 0; k < word.length && same; k++) {
        const said = lower[start + k] as string;
        same = word[k] === "_" ? said === " " || said === "_" || said === "-" : said === word[k];
      }
      if (same) yield word;
    }
  }
}

/** The patterns of every zip or postcode parameter, nested ones included. */
function zipPatterns(tools: readonly ToolDefinition[]): string[] {
  const out: string[] = [];
  const visit = (properties: Record<string, SchemaFragment> | undefined) => {
    for (const [name, schema] of Object.entries(properties ?? {})) {
      if (identityKey(snake(name)) === "zip" && schema.pattern) out.push(schema.pattern);
      visit(schema.properties);
      visit(schema.items?.properties);
    }
  };
  for (const tool of tools) visit(tool.parameters.properties as Record<string, SchemaFragment>);
  return out;
}

/** Whether a schema allows a string or a number, as an identifier is; true when it says no type. */
function scalar(schema: SchemaFragment | undefined): boolean {
  const type = schema?.type;
  if (type === undefined) return true;
  return (Array.isArray(type) ? type : [type]).some(
    (t) => t === "string" || t === "integer" || t === "number",
  );
}

/** A parameter stem without its direction or replacement prefix: `from_account` → account. */
function bareStem(stem: string): string {
  return stem
    .replace(/^\w+_to_/, "")
    .replace(FROM, "")
    .replace(TO, "")
    .replace(NEW, "")
    .replace(
      /^(old|original|current|requested_by|affected|receiving|sending|preferred|primary|default)_/,
      "",
    );
}

/** A parameter's name that says it holds the field's next value: `new_check_in`, `updated_email`. */
export const REPLACEMENT = /^(new|updated|revised|changed)_(.+)$/;

/**
 * The field a change's `new_check_in` replaces: the record's `check_in`, so the record moves rather
 * than gaining a second date beside the old one. Not when another parameter of the tool sets that
 * field itself (`item_ids` beside `new_item_ids` names which items, not the items after).
 */
function replacedField(
  entity: EntityModel,
  field: string,
  sets: ReadonlyMap<string, string>,
): string | null {
  const rest = REPLACEMENT.exec(field)?.[2];
  if (rest === undefined || entity.fields.has(field)) return null;
  const replaced = fieldFor(entity, rest);
  if (!entity.fields.has(replaced)) return null;
  for (const [other, set] of sets)
    if (snake(other) !== field && (set === rest || set === replaced)) return null;
  return replaced;
}

/** A count given as how many more: `additional_bags`, `extra_nights`. */
const ADDITION = /^(additional|extra|more)_(.+)$/;

/**
 * The count an `additional_bags` adds to: the record's one field that counts bags
 * (`checked_bags`), so the record keeps its total rather than gaining the addition beside it.
 */
function addedField(entity: EntityModel, field: string): string | null {
  const counted = ADDITION.exec(field)?.[2];
  if (counted === undefined || entity.fields.has(field)) return null;
  const kept = [...entity.fields.keys()].filter((f) => f === counted || f.endsWith(`_${counted}`));
  return kept.length === 1 ? (kept[0] as string) : null;
}

/** Verbs that turn a yes-or-no field on, and off. */
const TURNS_ON = new Set(["add", "enable", "activate", "include", "opt", "turn"]);
const TURNS_OFF = new Set(["remove", "disable", "deactivate", "exclude", "drop"]);

/**
 * The yes-or-no field a change's name turns on or off when no argument sets it:
 * `travel_insurance_add(reservation_id, payment_method_id)` makes the reservation's
 * `travel_insurance` true; `disable_autopay(account_id)` makes `autopay` false.
 */
function toggledField(entity: EntityModel, tool: ToolModel): { field: string; on: boolean } | null {
  const on = TURNS_ON.has(tool.verb) ? true : TURNS_OFF.has(tool.verb) ? false : null;
  if (on === null) return null;
  const field = nameWords(tool.tool.name)
    .filter((w) => w !== tool.verb)
    .join("_");
  if (field === "" || !entity.fields.has(field) || [...tool.sets.values()].includes(field))
    return null;
  const type = entity.fields.get(field)?.type;
  return type === undefined || type === "boolean" ? { field, on } : null;
}

/** The parts of an address a form gives apart. */
const ADDRESS_PART =
  /^(address_?1|address_?2|address_line_?[12]|line_?[12]|street(_address)?|city|town|state|province|region|county|zip|zip_?code|postcode|postal_code|country)$/;

/**
 * A change that gives an address in parts (`address1`, `address2`, `city`, `state`, `zip`) to a
 * record that keeps one (`shipping_address`) writes them there, joined: a later read shows the new
 * address, not the old one beside loose parts. Null when the record keeps no single address, or a
 * parameter of the tool sets it itself.
 */
function composedAddress(
  entity: EntityModel,
  tool: ToolModel,
): { field: string; parts: string[] } | null {
  const { sets } = tool;
  const parts = [...sets.keys()].filter((param) => ADDRESS_PART.test(snake(param)));
  if (parts.length < 2 || !parts.some((p) => /address|line|street/.test(snake(p)))) return null;
  const kept = [...entity.fields.keys()].filter(
    (f) => /(^|_)address$/.test(f) && !/email|(^|_)ip_/.test(f),
  );
  // Of two (`address`, `default_address`), the one the tool's name names most fully.
  const named = kept
    .filter((f) => snake(tool.tool.name).includes(f))
    .sort((a, b) => b.length - a.length);
  const longest =
    named.length === 1 || (named[0]?.length ?? 0) > (named[1]?.length ?? 0) ? named[0] : undefined;
  const field = kept.length === 1 ? kept[0] : longest;
  if (field === undefined) return null;
  if ([...sets.values()].includes(field)) return null;
  return { field, parts };
}

/** The field an argument writes: the same name, else the one field that ends with it (`address` → `shipping_address`). */
function fieldFor(entity: EntityModel, field: string): string {
  if (entity.fields.has(field)) return field;
  const matches = [...entity.fields.keys()].filter(
    (f) => f.endsWith(`_${field}`) || f.startsWith(`${field}_`),
  );
  return matches.length === 1 ? (matches[0] as string) : field;
}

/**
 * A text without its bracketed asides, as `/\([^)]*\)/g` would remove them, in one pass: that
 * pattern reads to the end of the text from each of a run of `(` with no `)`.
 */
function withoutBrackets(text: string): string {
  const kept: string[] = [];
  let from = 0;
  for (let open = text.indexOf("("); open >= 0; open = text.indexOf("(", from)) {
    const close = text.indexOf(")", open);
    // No `)` after this `(` is none after any later one either.
    if (close < 0) break;
    kept.push(text.slice(from, open));
    from = close + 1;
  }
  kept.push(text.slice(from));
  return kept.join("");
}

/**
 * Words that end a field's name in a list ("fulfillments with tracking ids" → fulfillments); a part
 * that starts with one ("if any", "on success") names no field.
 */
const QUALIFIER =
  /(^|\s)(with|if|for|per|when|where|that|which|including|incl|as|from|to|on|by|in)\s.*$/;
/** A field's type said in words after its name ("verified true/false"): not part of the name. */
const TYPE_WORDS = /\s+(true\/false|yes\/no|y\/n)$/i;

/** What a field takes of a parameter's closed set: its values and their type, not its words. */
function closedPart(set: SchemaFragment): SchemaFragment {
  return set.type === undefined ? { enum: set.enum } : { type: set.type, enum: set.enum };
}

/**
 * An object's or a list's schema whose members known only by name take the closed sets of the
 * parameters named like them; the schema itself when none does (it is the spec's: never changed).
 */
function withClosedSets(
  schema: SchemaFragment,
  sets: ReadonlyMap<string, SchemaFragment>,
  depth = 0,
): SchemaFragment {
  if (depth > 8) return schema;
  if (schema.items) {
    const items = withClosedSets(schema.items, sets, depth + 1);
    return items === schema.items ? schema : { ...schema, items };
  }
  if (!schema.properties) return schema;
  let changed = false;
  // Entries, not assignment: a member named `__proto__` stays a member.
  const members = Object.entries(schema.properties).map(
    ([name, member]): [string, SchemaFragment] => {
      const set = sets.get(snake(name));
      const next =
        set && saysNoMoreThan(member, set)
          ? { ...member, ...closedPart(set) }
          : withClosedSets(member, sets, depth + 1);
      if (next !== member) changed = true;
      return [name, next];
    },
  );
  return changed ? { ...schema, properties: Object.fromEntries(members) } : schema;
}

/**
 * Whether a field's schema leaves its values open where a parameter's closed set could fill them:
 * no schema, or one with only a type (the set's own) and words.
 */
function saysNoMoreThan(schema: SchemaFragment | undefined, set: SchemaFragment): boolean {
  if (schema === undefined) return true;
  const { type, description, ...rest } = schema;
  const setType = set.type ?? typeof (set.enum as unknown[])[0];
  return Object.keys(rest).length === 0 && (type === undefined || type === setType);
}

/** A boolean's schema when a description lists the field as one ("returns verified true/false"). */
function saidBoolean(description: string, field: string): SchemaFragment | undefined {
  const name = field.split("_").map(regexLiteral).join("[\\s_-]+");
  return new RegExp(`\\b${name}\\s+(true/false|yes/no|y/n)\\b`, "i").test(description)
    ? { type: "boolean" }
    : undefined;
}

/** Fields that hold a figure: what brackets after them give is its units or parts. */
const MEASURE_FIELD =
  /(^|_)(usage|count|total|balance|amount|rate|ratio|charges?|limit|price|cost|fees?)$/;
/** Words in brackets that measure rather than choose ("standing charges (pence/day)"). */
const UNIT_WORD =
  /^(pence|pennies|cents?|p|day|week|month|year|hour|minute|night|kwh|gb|mb|km|miles?|kg|usd|gbp|eur)s?$/;

/**
 * The choices a description gives a field in brackets after its name ("product (motor/home)",
 * "status (active, lapsed, cancelled)"), as a closed set, when it gives two to eight of them.
 */
function saidChoices(description: string, field: string): SchemaFragment | undefined {
  // A measure (`seat_usage (used/paid)`) is a figure of figures, not a choice; a person's detail
  // or a place (`address (street, city, postcode)`) is made of parts.
  if (MEASURE_FIELD.test(field) || identityKey(field) !== null) return undefined;
  const name = field.split("_").map(regexLiteral).join("[\\s_-]+");
  const bracket = new RegExp(`\\b${name}\\s*\\(([^()]{1,120})\\)`, "i").exec(description);
  if (!bracket) return undefined;
  const choices = (bracket[1] as string)
    .split(/\s*(?:,|\/|\bor\b)\s*/)
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== "");
  // One word each: a run of words in brackets says what the field holds ("items (with item id,
  // product id and price)", "options (for example color, size)"), not what it may be.
  if (choices.length < 2 || choices.length > 8) return undefined;
  if (!choices.every((c) => /^[a-z]{2,20}$/.test(c) && !UNIT_WORD.test(c))) return undefined;
  return { type: "string", enum: choices };
}

/**
 * Fields an answer shows when no output schema names them: the list in the description after a
 * colon or "returns" ("…: items (with item id and price), status, total and shipping address").
 */
function viewOf(tool: ToolDefinition): string[] | null {
  for (const sentence of tool.description.split(/(?<=\.)\s+/)) {
    const at =
      /:\s|\breturns?\s(?:the\s|a\s|an\s)?|\bincluding\s|\bshows?\s|\bwith\s(?=[a-z]+,)/i.exec(
        sentence,
      );
    if (!at) continue;
    const list = withoutBrackets(sentence.slice(at.index + at[0].length)).replace(/\.$/, "");
    const parts = list
      .split(/,|\band\b|;/)
      .map((part) => part.trim())
      .filter((part) => part !== "");
    // A part that is only a qualifier ("if any", "on success") is an item of the list, not a field.
    const qualifiers = parts.filter((part) => QUALIFIER.test(part) && part.search(QUALIFIER) === 0);
    const fields = parts
      .filter((part) => !qualifiers.includes(part))
      .map((part) => {
        const words = part.replace(QUALIFIER, "").replace(TYPE_WORDS, "");
        // A name written as the field itself, with words after it ("a verification_id valid for
        // 15 minutes"), is that field; a quoted one ("Statuses: 'in_progress', …") is a value.
        const literal = /^[`'"‘“]/.test(words)
          ? undefined
          : /\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s+\S/.exec(words)?.[1];
        return snake(
          literal ??
            words
              .replace(/^(the|its|a|an|any|each|their|his|her)\s+/i, "")
              .replace(/[\s/-]+/g, "_"),
        );
      })
      .filter((f) => /^[a-z][a-z0-9_]{1,40}$/.test(f) && f.split("_").length <= 3);
    if (fields.length >= 1 && fields.length + qualifiers.length >= 2) return [...new Set(fields)];
  }
  return null;
}

/** Words of a read's name that ask for the whole record, not for one thing it holds. */
const WHOLE_RECORD = new Set([
  "status",
  "details",
  "detail",
  "info",
  "information",
  "profile",
  "summary",
  "record",
  "overview",
  "data",
]);
/** Verbs of a read that checks what it is given against the record. */
const CHECKS = new Set(["verify", "validate", "authenticate", "confirm"]);
/** Verbs of a read that works a figure out rather than look one up: the figure is what it names. */
const ESTIMATES = new Set(["estimate", "calculate", "compute"]);

/**
 * What a read shows when its description lists nothing but its name names one thing the record
 * holds beyond itself (`estimate_copay` on a patient, `get_store_hours` on a store): that thing,
 * not the whole record. Null when the name asks for the record itself (`get_order_status`).
 */
function namedView(tool: ToolDefinition, entity: string): string[] | null {
  const verb = verbOf(tool.name);
  const words = nameWords(tool.name);
  const by = words.findIndex((w) => w === "by" || w === "for" || w === "with");
  const entityWords = new Set(entity.split("_").flatMap((w) => [w, plural(w)]));
  const rest = (by < 0 ? words : words.slice(0, by)).filter(
    (w) => w !== verb && !entityWords.has(w) && !WHOLE_RECORD.has(w),
  );
  // "quote_named_driver" quotes a price for a driver: what it names is the quote, not a driver.
  if (rest.length !== 1) return verb === "quote" ? ["quote"] : null;
  const [thing] = rest as [string];
  // A check takes what it names (`verify_account_pin` takes `pin_last_four`): it shows no PIN.
  const params = Object.keys(tool.parameters.properties ?? {}).map(snake);
  if (CHECKS.has(verb) || params.some((param) => param.includes(thing))) return null;
  return [ESTIMATES.has(verb) ? `estimated_${thing}` : thing];
}

function examplesOf(properties: Record<string, SchemaFragment>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [param, schema] of Object.entries(properties)) {
    const example = EXAMPLE.exec(schema.description ?? "")?.[1];
    if (example) out.set(param, example.replace(/[.,;:]+$/, ""));
  }
  return out;
}

/** The parameters of a tool, by name, with their schemas. */
export function propertiesOf(tool: ToolModel): Record<string, SchemaFragment> {
  return (tool.tool.parameters.properties ?? {}) as Record<string, SchemaFragment>;
}

/** Whether a field holds a detail of the person (their name, phone, zip…), by its name. */
export function isIdentityField(field: string): boolean {
  return identityKey(snake(field)) !== null;
}
