import type { Goal, PersonDetails, WorldRecord } from "../../spec/index.ts";
import type { Rng } from "../rng.ts";
import { composedByAgent } from "../text/agent-written.ts";
import { isVerb } from "../tools.ts";
import { keyed, lookup } from "../util/lookup.ts";
import { REFERENCE_FIELD, snake, spokenWords } from "../util/names.ts";
import { dayWithin, outsideWindow } from "../world/date-windows.ts";
import {
  detailKey,
  fitDetail,
  type Identity,
  identityKey,
  PERSONAL_DETAILS,
} from "../world/identity.ts";
import {
  type Draw,
  drawStep,
  type EntityModel,
  INSTRUMENT,
  leastDrawn,
  propertiesOf,
  type Ref,
  type ToolModel,
  type WorldModel,
} from "../world/model.ts";
import { numberedBy } from "../world/record-numbers.ts";
import type { SchemaFragment } from "../world/values.ts";
import { datesInOrder, money, personIdentity, valueFor } from "../world/values.ts";
import type { World } from "../world/world.ts";
import { keep } from "./style.ts";

/** Words for a tool's verb in a person's mouth. */
const VERB_WORDS: Record<string, string> = {
  get: "check",
  check: "check",
  view: "check",
  show: "check",
  lookup: "look up",
  fetch: "check",
  read: "check",
  list: "see",
  search: "find",
  find: "find",
  track: "track",
  refund: "get a refund for",
  update: "change",
  modify: "change",
  edit: "change",
  set: "change",
  create: "open",
  submit: "submit",
  pay: "pay",
  transfer: "transfer",
  freeze: "freeze",
  close: "close",
  reset: "reset",
  exchange: "exchange",
  cancel: "cancel",
};

/** The parts of a postal address, which a move changes together. */
const ADDRESS_PARTS = new Set(["street", "address", "city", "zip", "state", "country"]);

/**
 * What the person wants from this situation: the call of the situation's tool that would do it,
 * with the values they hold or have in mind, and the request in words (values marked to survive
 * styling). Every value comes from the world the person lives in: their own details, the records
 * they hold, and the catalog they choose from; so in a `normal` world the call finds what it asks for.
 */
/**
 * The part of an address a parameter names, by its name with the move's word taken off
 * (`forwarding_postcode` → zip): a new address's parts are all of that one address.
 */
function addressPart(param: string): string | undefined {
  // A second line (a flat, a suite) is no part the move has.
  if (/(^|_)(address_?line_?2|address2|apartment|unit|suite)$/.test(snake(param))) return undefined;
  const key =
    identityKey(snake(param)) ??
    identityKey(snake(param).replace(/^(forwarding|new|mailing|shipping|moving|destination)_/, ""));
  return key && ADDRESS_PARTS.has(key) ? key : undefined;
}

/** A yes-or-no argument that records the person's consent: accepted, agreed, confirmed, acknowledged. */
const CONSENT =
  /(^|_)(accept(ed|s)?|agree(d|s)?|consent(ed|s)?|confirm(ed|s)?|acknowledg(ed|es|ment)|declaration|terms|authori[sz](ed|ation))(_|$)/;

/** Yes-or-nos that only sound like consent: marketing, automatic rules, facts about someone. */
const NOT_CONSENT =
  /(^|_)(marketing|newsletter|promotions?)(_|$)|^(auto_|is_|has_)|_(required|by_\w+)$/;

export function goalOf(world: World, rng: Rng): Goal {
  const tool = world.model.tools.get(world.situation.axes.tool) as ToolModel;
  const entity = world.model.entities.get(tool.entity) as EntityModel;
  const subject = subjectRecord(world, tool);
  const properties = (tool.tool.parameters.properties ?? {}) as Record<string, SchemaFragment>;
  // Keyed by the spec's parameter names: no prototype, so `__proto__` is an argument like any other.
  const args: Record<string, unknown> = keyed();
  const required = new Set(tool.tool.parameters.required ?? []);
  const lookedUp = tool.kind === "read_many" ? lookupRecord(world, tool, rng) : undefined;
  // A write about an address (a new shipping address, a move) takes one whole new address.
  const moving =
    (tool.kind === "change" || tool.kind === "create") &&
    /address|move|moving|relocat|shipping|mailing|forward/.test(snake(tool.tool.name))
      ? personIdentity(rng.fork("new address"), 0, world.model.places)
      : null;
  // A change must change something: where it requires no detail, the person asks for one.
  const details = Object.keys(properties).filter(
    (param) =>
      !tool.idEntities.has(param) &&
      !tool.refs.some((r) => r.param === param) &&
      param !== tool.limitParam &&
      !composedByAgent(tool, param),
  );
  const chosenDetail =
    tool.kind === "change" && details.length > 0 && !details.some((p) => required.has(p))
      ? rng.fork("detail").pick(details)
      : undefined;
  const drawnSchema = tool.draws ? properties[tool.draws.param] : undefined;
  const drawn = drawnSchema ? drawnFor(world, tool, subject, drawnSchema, rng) : null;
  for (const [param, schema] of Object.entries(properties)) {
    const held = lookup(world.person.ids, param);
    const ref = tool.refs.find((r) => r.param === param);
    const known = personDetail(world.person, param);
    // A detail counts only in a form the argument takes: one of its enum, when it has one.
    const detail =
      known !== undefined && (!Array.isArray(schema.enum) || schema.enum.includes(known))
        ? known
        : undefined;
    // Optional arguments stay out of the request: the person asks for what the tool needs, and
    // gives the details a lookup finds them by.
    const filters =
      tool.kind === "read_many" && tool.filters.includes(param) && detail !== undefined;
    if (
      !required.has(param) &&
      held === undefined &&
      !tool.idEntities.has(param) &&
      !filters &&
      param !== chosenDetail
    )
      continue;
    // A hand-off needs what it requires; the rest is the colleague's to ask.
    if (tool.kind === "handoff" && !required.has(param)) continue;
    // An optional list of ids (`affected_user_ids`) is nothing the person would think to give,
    // nor, for a write, an optional pick from a catalog (`waitlist_add`'s therapist): any will do.
    if (ref?.many && !required.has(param)) continue;
    if (
      ref &&
      !required.has(param) &&
      (tool.kind === "create" || tool.kind === "change") &&
      world.model.entities.get(ref.entity)?.catalog
    )
      continue;
    const part = moving ? (addressPart(param) as keyof Identity | undefined) : undefined;
    const numbered =
      ref || tool.idEntities.has(param) ? undefined : ownNumber(world, param, subject, rng);
    if (held !== undefined) args[param] = typed(schema, held);
    else if (ref?.by === "email") args[param] = world.person.email;
    else if (ref?.many) {
      const ids = manyIds(world, tool, ref, subject, args, rng);
      if (ids.length > 0) args[param] = ids;
    } else if (lookedUp?.[snake(param)] !== undefined) args[param] = lookedUp[snake(param)];
    else if (numbered !== undefined) args[param] = typed(schema, numbered);
    else if (ref && (ref.role === "new" || world.model.entities.get(ref.entity)?.catalog)) {
      const chosen = choice(world, ref, subject, rng);
      if (chosen !== undefined) args[param] = typed(schema, chosen);
    } else if (tool.idEntities.has(param) || param === tool.limitParam) continue;
    else if (param === tool.draws?.param && drawn !== null) args[param] = drawn;
    else if (param === tool.amountParam)
      args[param] = withinBounds(amountFor(world, tool, subject, rng), schema);
    else if (composedByAgent(tool, param)) continue;
    else if (part && moving && schema.type !== "array" && schema.type !== "object")
      args[param] = typed(schema, fitDetail(snake(param), moving[part], schema.pattern));
    else if (detail !== undefined && schema.type !== "array" && schema.type !== "object")
      args[param] = typed(schema, fitDetail(snake(param), detail, schema.pattern));
    else if (Array.isArray(schema.enum) && schema.enum.length > 0)
      args[param] = rng.pick(schema.enum);
    // Someone who asks for a write agrees to what it asks them to accept (a claim's declaration).
    else if (
      schema.type === "boolean" &&
      CONSENT.test(snake(param)) &&
      !NOT_CONSENT.test(snake(param))
    )
      args[param] = true;
    else args[param] = objectFor(world, tool, param, schema, rng, entity, subject);
  }
  datesInOrder(args);
  // A day the tool bounds around today is one it takes (a meter reading of the last fortnight).
  for (const [param, window] of tool.dateWindows)
    if (args[param] !== undefined && outsideWindow(args[param], window))
      args[param] = dayWithin(window, rng);
  // Two identical records (the duplicate_records world): the person means one, not knowing its id,
  // so their request names neither; either is the goal, and the call that would do it names one.
  const { duplicates, entity: duplicated } = world.state.shaped as {
    duplicates?: string[];
    entity?: string;
  };
  const twinParam =
    duplicates && duplicates.length > 1 && duplicated
      ? duplicatedParam(world, tool, args, duplicated, duplicates)
      : null;
  if (twinParam) delete args[twinParam];
  const goal: Goal = {
    tool: tool.tool.name,
    arguments: args,
    text: requestText(tool, entity, args, world.model, whoElse(world, tool, args)),
  };
  if (twinParam && duplicates) {
    const [first, ...others] = duplicates as [string, ...string[]];
    args[twinParam] = first;
    goal.alternatives = others.map((id) => ({ ...args, [twinParam]: id }));
  } else if (duplicates) {
    // One they quote but are unsure of ("either QVA9JO or WEOVHC"): the other twin does as well.
    const unsure = Object.entries(world.person.candidates).find(
      ([param, ids]) => args[param] !== undefined && ids.includes(String(args[param])),
    );
    if (unsure) {
      const [param, ids] = unsure;
      const schema = properties[param];
      goal.alternatives = ids
        .filter((id) => id !== String(args[param]) && duplicates.includes(id))
        .map((id) => ({ ...args, [param]: typed(schema, id) }));
    }
  }
  // A wrong id for a record that is there (record_missing): refusing the id, or finding the
  // record the person describes and acting on it, both do what they asked.
  const { missing } = world.state.shaped as {
    missing?: { id?: string; param?: string | null; meant?: string };
  };
  const held = missing?.param ? args[missing.param] : undefined;
  if (missing?.param && missing.meant && held !== undefined && String(held) === missing.id)
    goal.alternatives = [
      ...(goal.alternatives ?? []),
      {
        ...args,
        [missing.param]: typeof held === "number" ? Number(missing.meant) : missing.meant,
      },
    ];
  return goal;
}

/** A detail the person holds for a parameter: by its name, or by the identity it names (`billing_zip` → their zip). */
export function personDetail(person: PersonDetails, param: string): string | undefined {
  const key = snake(param);
  const direct = lookup(person.details, key) ?? lookup(person.details, param);
  if (direct !== undefined) return direct;
  const identity = identityKey(key);
  if (identity === "name") return person.name;
  if (identity === "email") return person.email;
  if (identity === "phone") return person.phone;
  return identity ? lookup(person.details, identity) : undefined;
}

/**
 * The number one of the person's records goes by under this parameter's name, though it is not
 * its id (the `rx_number` of a prescription of theirs, the subject's own where it has one): a
 * request names a record they hold, never a number nobody has.
 */
function ownNumber(
  world: World,
  param: string,
  subject: WorldRecord | undefined,
  rng: Rng,
): string | undefined {
  const key = snake(param);
  for (const entity of numberedBy(world.model, param)) {
    if (
      subject &&
      subject[key] !== undefined &&
      world.store.get(entity.name, String(subject[entity.idField])) === subject
    )
      return String(subject[key]);
    const numbers = world.store
      .ownedBy(entity.name, world.state.person.customer_id)
      .map((r) => r[key])
      .filter((v) => typeof v === "string" || typeof v === "number");
    if (numbers.length > 0) return String(rng.fork("record number").pick(numbers));
  }
  return undefined;
}

/** A held value as the parameter's type takes it. */
function typed(schema: SchemaFragment | undefined, value: string): unknown {
  return schema?.type === "integer" || schema?.type === "number" ? Number(value) : value;
}

/** The record a request is about, when the person holds its id and it exists. */
function subjectRecord(world: World, tool: ToolModel): WorldRecord | undefined {
  const state = world.state;
  if (!state.subject.id) return undefined;
  const entity = world.model.entities.get(state.subject.entity) as EntityModel;
  return tool.idParam || tool.refs.length > 0
    ? world.store.get(entity.name, state.subject.id)
    : undefined;
}

/**
 * The record a list or search is after: the person themselves when it lists people; else one of
 * theirs, or of the catalog, under the records they hold the ids of (a claim's inspection slots).
 */
function lookupRecord(world: World, tool: ToolModel, rng: Rng): WorldRecord | undefined {
  const entity = world.model.entities.get(tool.entity) as EntityModel;
  const personId = world.state.person.customer_id;
  if (entity.isPerson) return world.store.get(entity.name, personId);
  const held = tool.refs.flatMap((r) => {
    const id = lookup(world.person.ids, r.param);
    const refEntity = world.model.entities.get(r.entity) as EntityModel;
    return id === undefined || r.many ? [] : [{ field: refEntity.idField, id }];
  });
  const under = (record: WorldRecord) =>
    held.every((h) => record[h.field] === undefined || String(record[h.field]) === h.id);
  const own = world.store.ownedBy(entity.name, personId).filter(under);
  // A person whose records the world emptied has none of their own to name, and names nobody else's.
  if (own.length === 0 && !entity.catalog && world.situation.axes.world === "empty_account")
    return undefined;
  const all = own.length > 0 ? own : [...world.store.all(entity.name)].filter(under);
  // Of records nobody owns, the person asks about those where they live (a tariff for their postcode).
  const local = all.filter((record) => nearby(record, world.person));
  const pool = local.length > 0 ? local : all;
  return pool.length > 0 ? rng.pick(pool) : undefined;
}

/** Ids for a list argument: of the subject's own records (the items of their order), or others for a replacement (`new_item_ids`). */
function manyIds(
  world: World,
  tool: ToolModel,
  ref: Ref,
  subject: WorldRecord | undefined,
  args: Record<string, unknown>,
  rng: Rng,
): string[] {
  const entity = world.model.entities.get(ref.entity) as EntityModel;
  const subjectEntity = world.model.entities.get(tool.entity) as EntityModel;
  const subjectId = subject?.[subjectEntity.idField];
  const own =
    subjectId !== undefined && entity.parent?.entity === subjectEntity.name
      ? world.store.childrenOf(entity.name, String(subjectId))
      : world.store.ownedBy(entity.name, world.state.person.customer_id);
  if (ref.role === "new") {
    const count = Math.max(
      1,
      ...tool.refs
        .filter((r) => r.many && r.role !== "new")
        .map((r) => (Array.isArray(args[r.param]) ? (args[r.param] as unknown[]).length : 0)),
    );
    const others = [...world.store.all(entity.name)].filter((r) => !own.includes(r));
    return pickSome(others, count, rng).map((r) => String(r[entity.idField]));
  }
  return pickSome(own, 1 + rng.int(Math.min(2, Math.max(1, own.length))), rng).map((r) =>
    String(r[entity.idField]),
  );
}

/** A record the person chooses: another than the subject holds now (a new plan, a new slot), else any. */
function choice(
  world: World,
  ref: Ref,
  subject: WorldRecord | undefined,
  rng: Rng,
): string | undefined {
  const entity = world.model.entities.get(ref.entity) as EntityModel;
  const current = subject?.[entity.idField] ?? subject?.[snake(ref.param)];
  const pool = [...world.store.all(entity.name)].filter((r) => r[entity.idField] !== current);
  return pool.length > 0 ? String(rng.pick(pool)[entity.idField]) : undefined;
}

function pickSome<T>(pool: T[], count: number, rng: Rng): T[] {
  const left = [...pool];
  const out: T[] = [];
  while (out.length < count && left.length > 0)
    out.push(left.splice(rng.int(left.length), 1)[0] as T);
  return out;
}

/**
 * A value for an argument the person makes up (a new address, a date), or an object or list of
 * objects built from the records they name: what the record the request is about lists (a seat
 * for one of the reservation's own flights), else a flight's number and date from a flight the
 * world has, a payment from their own payment method.
 */
function objectFor(
  world: World,
  tool: ToolModel,
  param: string,
  schema: SchemaFragment,
  rng: Rng,
  entity: EntityModel,
  subject: WorldRecord | undefined,
): unknown {
  const ctx = { rng, entity: entity.name, isPerson: false, currency: "USD" };
  const item = schema.type === "array" ? schema.items : schema;
  const properties = item?.type === "object" ? item.properties : undefined;
  if (!properties) return valueFor(snake(param), schema, ctx);
  // What replaces what the record lists (`new_flights`) is none of what it lists already.
  const replacing = REPLACEMENT.test(snake(param));
  const held = listedIn(subject, Object.keys(properties));
  const listed = replacing ? [] : held;
  const build = () => {
    const nested = tool.nested.find((n) => n.param === param);
    const own = listed.length > 0 ? rng.pick(listed) : undefined;
    const idField = nested && (world.model.entities.get(nested.entity) as EntityModel).idField;
    const heldIds = new Set(held.map((h) => (idField ? h[idField] : undefined)));
    const source = nested
      ? recordOf(world, nested.entity, rng, (r) => !heldIds.has(r[idField as string]))
      : undefined;
    const out: Record<string, unknown> = keyed();
    for (const [key, sub] of Object.entries(properties)) {
      const detail = personDetail(world.person, key);
      if (own && Object.hasOwn(own, key)) out[key] = own[key];
      else if (source && source[key] !== undefined) out[key] = source[key];
      else if (source && nested && key === nested.key)
        out[key] = source[(world.model.entities.get(nested.entity) as EntityModel).idField];
      else if (detail !== undefined && sub.type !== "object" && sub.type !== "array")
        out[key] = typed(sub, detail);
      else out[key] = valueFor(snake(key), sub, ctx);
    }
    return out;
  };
  return schema.type === "array" ? [build()] : build();
}

/**
 * The objects a record lists that an argument's objects name (a reservation's `flights`, by the
 * `flight_number` a seat assignment names): they share a reference, or two fields.
 */
function listedIn(record: WorldRecord | undefined, keys: readonly string[]): WorldRecord[] {
  if (!record) return [];
  for (const value of Object.values(record)) {
    if (!Array.isArray(value)) continue;
    const objects = value.filter(
      (v): v is WorldRecord => v !== null && typeof v === "object" && !Array.isArray(v),
    );
    const first = objects[0];
    if (!first || objects.length !== value.length) continue;
    const shared = keys.filter((k) => Object.hasOwn(first, k));
    if (shared.some((k) => REFERENCE_FIELD.test(k)) || shared.length >= 2) return objects;
  }
  return [];
}

/** An argument that replaces what a record holds: `new_flights`, `replacement_items`. */
const REPLACEMENT = /(^|_)(new|replacement|replacing|updated|changed)(_|$)/;

/** A record of an entity the person may name, of those `wanted` takes: their own, else any. */
function recordOf(
  world: World,
  name: string,
  rng: Rng,
  wanted: (record: WorldRecord) => boolean = () => true,
): WorldRecord | undefined {
  const own = world.store.ownedBy(name, world.state.person.customer_id).filter(wanted);
  const pool = own.length > 0 ? own : [...world.store.all(name)].filter(wanted);
  return pool.length > 0 ? rng.pick(pool) : undefined;
}

/** An amount inside the schema's bounds, in whole cents. */
function withinBounds(amount: number, schema: SchemaFragment): number {
  const low =
    schema.minimum ??
    (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 0.01 : 0.01);
  const high = schema.maximum ?? Number.POSITIVE_INFINITY;
  return Math.round(Math.min(high, Math.max(low, amount)) * 100) / 100;
}

/**
 * What the person draws on a balance (see {@link Draw}): what the subject owes, or now and then
 * part of it; or a number of the steps the argument takes (1,000-point blocks) that their own
 * balance covers. Null when the balance holds less than the argument's least.
 */
function drawnFor(
  world: World,
  tool: ToolModel,
  subject: WorldRecord | undefined,
  schema: SchemaFragment,
  rng: Rng,
): number | null {
  const draw = tool.draws as Draw;
  const holder = draw.onTarget
    ? subject
    : world.store.newestOwnedBy(draw.entity, world.state.person.customer_id);
  const held = holder?.[draw.field];
  const step = drawStep(schema);
  const least = leastDrawn(schema);
  const most = Math.min(typeof held === "number" ? held : 0, schema.maximum ?? Infinity);
  if (most < least) return null;
  const draws = rng.fork("draw", tool.tool.name);
  if (draw.onTarget)
    return draws.chance(0.25) && most >= 2 * least
      ? money(draws, Math.min(20, most / 2), most)
      : most;
  const low = Math.ceil(least / step);
  const high = Math.floor(most / step);
  return Math.round(step * (low + draws.int(high - low + 1)) * 100) / 100;
}

/** The amount the person has in mind: the subject's total, else a sum their account can cover. */
function amountFor(
  world: World,
  tool: ToolModel,
  subject: WorldRecord | undefined,
  rng: Rng,
): number {
  const total =
    subject &&
    ["total", "amount", "price"].map((f) => subject[f]).find((v) => typeof v === "number");
  if (typeof total === "number") return total;
  const debit = tool.debit ? lookup(world.person.ids, tool.debit.param) : undefined;
  const account = debit ? world.store.get(tool.debit?.entity as string, debit) : undefined;
  const entity = tool.debit ? world.model.entities.get(tool.debit.entity) : undefined;
  const available = entity?.balanceFields
    .map((f) => account?.[f])
    .filter((v): v is number => typeof v === "number");
  const cap = available && available.length > 0 ? Math.min(...available) * 0.8 : 400;
  return money(rng, Math.min(20, cap / 2), Math.max(cap, 1));
}

/**
 * The request as a person first puts it: the action and the records it is about (their ids, an
 * amount), the other details left for when the agent asks.
 */
export function openingRequest(world: World, goal: Goal): string {
  const tool = world.model.tools.get(goal.tool) as ToolModel;
  const entity = world.model.entities.get(tool.entity) as EntityModel;
  if (tool.kind === "handoff") return requestText(tool, entity, goal.arguments, world.model);
  // Only ids the person holds: of two identical records they do not know which id is theirs.
  const held = (param: string) => lookup(world.person.ids, param) !== undefined;
  // A change that requires no detail is asked for with the one the person wants changed: nothing
  // else would tell the agent what to change.
  const required = new Set(tool.tool.parameters.required ?? []);
  const optionalChange =
    tool.kind === "change" &&
    !Object.keys(goal.arguments).some((p) => required.has(p) && !tool.idEntities.has(p));
  const kept = Object.fromEntries(
    Object.entries(goal.arguments).filter(
      ([param]) =>
        param === tool.amountParam ||
        (optionalChange && !required.has(param) && !tool.idEntities.has(param)) ||
        // …and so is what narrows a listing when the agent need not ask for it ("in Lyon"); who
        // the person is stays theirs to give when asked.
        (tool.kind === "read_many" &&
          !entity.isPerson &&
          !required.has(param) &&
          tool.filters.includes(param) &&
          !PERSONAL_DETAILS.has(identityKey(snake(param)) ?? "")) ||
        ((param === tool.idParam ||
          tool.refs.some((r) => r.param === param && !r.many && r.by === "id")) &&
          (held(param) || !tool.idEntities.has(param))),
    ),
  );
  return requestText(tool, entity, kept, world.model, whoElse(world, tool, kept));
}

/**
 * The argument of a duplicate_records goal that names one of the two alike records: the id of
 * what the call acts on, or a required reference to it (the account a payment plan is set up on).
 * Null when the goal names one of them already; one it took from another of the person's records
 * (a list's filter read off some record of theirs) is put right, as the person means the twins. A
 * catalog's twins (two alike flights) are no record of the person's: what the goal chose stands.
 */
function duplicatedParam(
  world: World,
  tool: ToolModel,
  args: Record<string, unknown>,
  entity: string,
  twins: readonly string[],
): string | null {
  if (world.model.entities.get(entity)?.catalog)
    return tool.idParam && tool.entity === entity && args[tool.idParam] === undefined
      ? tool.idParam
      : null;
  const open = (param: string) => args[param] === undefined || !twins.includes(String(args[param]));
  if (tool.idParam && tool.entity === entity) return open(tool.idParam) ? tool.idParam : null;
  const required = new Set(tool.tool.parameters.required ?? []);
  const ref = tool.refs.find(
    (r) =>
      r.entity === entity && r.by === "id" && !r.many && r.role === null && required.has(r.param),
  );
  return ref && open(ref.param) ? ref.param : null;
}

/** Someone else a change is about whose id the request lacks, as the person knows them ("the user Aiko Reyes"). */
function whoElse(world: World, tool: ToolModel, args: Record<string, unknown>): string | undefined {
  return tool.another && tool.idParam && args[tool.idParam] === undefined
    ? world.person.about
    : undefined;
}

/** "cancel my order W1234567 because it arrived damaged", with every value kept verbatim. */
function requestText(
  tool: ToolModel,
  entity: EntityModel,
  args: Record<string, unknown>,
  model: WorldModel,
  who?: string,
): string {
  if (tool.kind === "handoff") {
    // A desk chosen from a list ("collections") is part of asking for the right person.
    const properties = (tool.tool.parameters.properties ?? {}) as Record<string, SchemaFragment>;
    const chosen = Object.entries(args).filter(
      ([param, value]) => typeof value === "string" && properties[param]?.enum,
    );
    const desks = chosen
      .filter(([param]) => DESK.test(snake(param)))
      .map(([, value]) => keep(String(value).replace(/_/g, " ")));
    // What is not a desk is said after it: how urgent ("it's urgent"), else as any other detail.
    const others = chosen
      .filter(([param]) => !DESK.test(snake(param)))
      .map(([param, value]) =>
        /urgency|severity/.test(snake(param))
          ? `it's ${keep(String(value).replace(/_/g, " "))}`
          : argumentPhrase(param, value, false),
      );
    const asked = `talk to ${handoffTarget(tool)}${desks.length > 0 ? ` about ${desks.join(" and ")}` : ""}`;
    return [asked, ...others].join(", ");
  }
  const words = snake(tool.tool.name)
    .split("_")
    .filter((w) => w !== tool.verb);
  // "port_in_number": the particle goes with the verb ("port in my number"), not with the thing.
  const particle = PARTICLES.has(words[0] ?? "") && words.length > 1 ? words.shift() : undefined;
  const nouns = words.join(" ");
  // A record of a catalog is nobody's: "the slot SL-…", never "my slot".
  const named = (param: string) => {
    const of = tool.idEntities.get(param) ?? tool.entity;
    // …nor is someone else of the person's kind a change acts on ("the user usr_…").
    const whose =
      model.entities.get(of)?.catalog || (tool.another && param === tool.idParam) ? "the" : "my";
    return `${whose} ${of.replace(/_/g, " ")} ${keep(String(args[param]))}`;
  };
  const person = model.person.name;
  // The person's own id is who they are, said as a detail ("with guest id gst_09762"), never
  // "for my guest gst_09762".
  const isPerson = (param: string) =>
    (tool.idEntities.get(param) ?? tool.entity) === person &&
    !(tool.another && param === tool.idParam);
  const whoIAm = (param: string) =>
    `with ${keep(spokenWords(snake(param)))} ${keep(String(args[param]))}`;
  const amount =
    tool.amountParam && args[tool.amountParam] !== undefined
      ? keep(Number(args[tool.amountParam]).toFixed(2))
      : null;
  const id =
    tool.idParam && !tool.idByEmail && args[tool.idParam] !== undefined ? tool.idParam : null;
  const verb = lookup(VERB_WORDS, tool.verb) ?? tool.verb;
  const parts = [particle ? `${verb} ${particle}` : verb];
  if (id && isPerson(id))
    parts.push(`my ${nouns === entity.name || nouns === "" ? "details" : nouns}`);
  else if (id || who) {
    const about = ownWordsLeft(words, entity);
    const whom = id ? named(id) : keep(who as string);
    parts.push(about === "" ? whom : `the ${about} of ${whom}`);
  } else {
    // "transfer 200.00", "pay 45.00": money moved is said after the verb; an amount of something
    // else ("open a new payment plan") is said with its name, as the other details are.
    const moved = MASS_NOUNS.has(nouns) || MONEY_VERBS.has(tool.verb);
    if (amount && moved) parts.push(amount);
    if (!MASS_NOUNS.has(nouns))
      parts.push(
        `${CREATE_VERBS.has(tool.verb) ? "a new" : entity.catalog ? "the" : "my"} ${nouns || entity.name}`,
      );
    if (amount && !moved && tool.amountParam)
      parts.push(argumentPhrase(tool.amountParam, args[tool.amountParam]));
  }
  if (id && amount) parts.push(`of ${amount}`);
  // A record said once is not said again (`requested_by_user_id` is the same user as `user_id`).
  const said = new Set(id ? [named(id)] : []);
  if (id && isPerson(id)) parts.push(whoIAm(id));
  for (const ref of tool.refs) {
    if (ref.by !== "id" || args[ref.param] === undefined || ref.many) continue;
    if (said.has(named(ref.param))) continue;
    said.add(named(ref.param));
    if (ref.entity === person) {
      parts.push(whoIAm(ref.param));
      continue;
    }
    // What a payment is made with is used ("using my card card_0495"), not asked for.
    const direction =
      ref === tool.debit
        ? "from"
        : INSTRUMENT.test(ref.entity)
          ? "using"
          : ref === tool.credit || ref.role === "to" || ref.role === "new"
            ? "to"
            : ref.entity === entity.parent?.entity
              ? "from"
              : tool.debit
                ? "to"
                : "for";
    parts.push(`${direction} ${named(ref.param)}`);
  }
  for (const [param, value] of Object.entries(args)) {
    if (param === tool.idParam || param === tool.amountParam) continue;
    if (tool.refs.some((r) => r.param === param && !r.many)) continue;
    const chosen = Array.isArray(propertiesOf(tool)[param]?.enum);
    parts.push(
      argumentPhrase(param, value, tool.kind !== "read_one" && tool.kind !== "read_many", chosen),
    );
  }
  // Each detail after the first is set off by a comma, so one's value never runs into the next.
  const [head, ...details] = parts;
  const lead = [head, ...details.filter((d) => !/^with /.test(d))].join(" ");
  const labelled = details.filter((d) => /^with /.test(d));
  return labelled.length > 0 ? `${lead}, ${labelled.join(", ")}` : lead;
}

const MASS_NOUNS = new Set(["funds", "fund", "money", "cash"]);
/** Words that go with a verb when they follow it in a tool's name: `port_in`, `sign_up`, `top_up`. */
const PARTICLES = new Set(["in", "out", "up", "off", "on", "back", "over", "down"]);
/** Verbs whose amount is the money they move: "pay 45.00", "send 20.00". */
const MONEY_VERBS = new Set([
  "pay",
  "transfer",
  "send",
  "refund",
  "withdraw",
  "deposit",
  "charge",
  "donate",
  "tip",
  "top",
  "move",
]);
const CREATE_VERBS = new Set([
  "create",
  "open",
  "submit",
  "add",
  "book",
  "place",
  "register",
  "new",
]);

/** A value as a person says it: lists joined with "and", objects as "label value" pairs. */
export function spokenValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(spokenValue).join(" and ");
  if (value !== null && typeof value === "object")
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${spokenWords(snake(k))} ${spokenValue(v)}`)
      .join(", ");
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(2);
  // A choice spelled as a code ("premium_economy") is said in words; an id ("card_6264") is not.
  if (typeof value === "string" && /^[a-z]+(_[a-z]+)+$/.test(value))
    return value.replace(/_/g, " ");
  return String(value);
}

/**
 * A non-identifier argument as a person says it: "to 5 Quay Street", "because it arrived
 * damaged". An address is where a write sends something ("to …"); a read finds by it, so it is
 * said with its name ("with address line 1 87 Dover Close"). A reason `chosen` from a list is
 * said as the kind of words it is ({@link chosenReason}).
 */
export function argumentPhrase(
  param: string,
  value: unknown,
  writes = true,
  chosen = false,
): string {
  const key = snake(param);
  const said = typeof value === "string" ? value.replace(/_/g, " ") : spokenValue(value);
  const v = keep(said);
  if (writes && /address/.test(key) && !/email/.test(key)) return `to ${v}`;
  if (/reason/.test(key)) return chosen ? chosenReason(said) : `because ${v}`;
  if (/variant|size|colou?r/.test(key)) return `for ${v}`;
  if (/priority/.test(key)) return `with ${v} priority`;
  if (/subject|title|issue/.test(key)) return `about "${v}"`;
  if (key === "date") return `on ${v}`;
  // The label is kept as typed, as in an answer: a typo must never hide which detail it is.
  return `with ${keep(spokenWords(key))} ${v}`;
}

/**
 * What a tool's name says beyond its record: its words less the record's name and states, and a
 * preposition left at the end (`return_delivered_order_items` on an order → "items";
 * `cancel_draft_claim` → nothing; `add_documents_to_claim` → "documents").
 */
function ownWordsLeft(words: readonly string[], entity: EntityModel): string {
  const own = new Set(
    [
      entity.name,
      entity.collection,
      ...entity.statuses.usable,
      ...entity.statuses.terminal,
    ].flatMap((w) => w.split("_")),
  );
  const left = words.filter((w) => !own.has(w));
  while (left.length > 0 && PREPOSITION.test(left.at(-1) as string)) left.pop();
  return left.join(" ");
}

/** Words after which a participle says what happened to a thing ("ordered by mistake"). */
const PREPOSITION = /^(by|in|on|at|for|from|to|with|after|before|during)$/;
/** Words that say how after a doing ("feeling better", "moving away"). */
const HOW = /^(better|worse|well|unwell|ill|away|abroad|home|back|out|up|on|off)$/;
/** A first word that says what happened: a participle ("cancelled", "lost", "stolen"). */
const PARTICIPLE = /^([a-z]+ed|lost|stolen|found|broken|made|sent|paid|gone|done|given|taken)$/;

/**
 * A reason chosen from a list (`feeling_better`, `schedule_conflict`, `ordered_by_mistake`) as a
 * person gives it, its words kept as they are: "because I'm feeling better", "because of schedule
 * conflict", "because it was ordered by mistake", "because it's too expensive", "for medical
 * reasons", "for some other reason".
 */
export function chosenReason(said: string): string {
  const v = keep(said);
  const words = said.toLowerCase().split(/\s+/);
  const [first = "", second] = words;
  if (said.toLowerCase() === "other") return `for some ${v} reason`;
  // "feeling better", "relocating": what the person is doing; "underwriting referral" is a thing.
  if (/^[a-z]+ing$/.test(first) && first.length > 5 && (second === undefined || HOW.test(second)))
    return `because I'm ${v}`;
  if (/^(too|no|not)$/.test(first)) return `because it's ${v}`;
  if (/^(will|won't|can't|cannot|need|want|prefer)$/.test(first)) return `because I ${v}`;
  if (PARTICIPLE.test(first) && !/^(or|and)$/.test(second ?? ""))
    return second === undefined || PREPOSITION.test(second)
      ? `because it was ${v}`
      : `because I ${v}`;
  if (words.length === 1 && /(al|ary|ive|ous|ful|able|ible|ic)$/.test(first))
    return /al$/.test(first) ? `for ${v} reasons` : `because it's ${v}`;
  return `because of ${v}`;
}

/** A hand-off's choice that names whom or what about (a team, a topic), said as "about billing". */
const DESK =
  /(reason|topic|queue|team|department|desk|category|area|skill|group|specialty|subject)/;
/** Words of a hand-off's name for people in general, who are asked for as "a human". */
const ANYONE =
  /^(human|humans|person|people|agents?|someone|staff|team|support|care|customer|live|real|chat|call|conversation)$/;
/** Words of a hand-off's name for the handing over itself (`front_desk_handoff`, `adjuster_callback`). */
const HANDING =
  /^(to|with|hand|off|over|handover|callback|call|back|consultation|escalation|referral)$/;

/**
 * Who a hand-off passes the person to, as they would ask: "a pharmacist", "an account manager",
 * "the front desk", else "a human".
 */
function handoffTarget(tool: ToolModel): string {
  const words = snake(tool.tool.name)
    .split("_")
    .filter((w) => w !== tool.verb && !isVerb(w) && !HANDING.test(w));
  if (words.every((w) => ANYONE.test(w))) return "a human";
  const who = words.join(" ");
  if (/(desk|office|department|unit|line)$/.test(who)) return `the ${who}`;
  return `${/^[aeiou]/.test(who) ? "an" : "a"} ${who}`;
}

/** Whether a record's place fields (zip, city) are the person's own. */
function nearby(record: WorldRecord, person: PersonDetails): boolean {
  const places = Object.entries(record).filter(([field]) => {
    const key = identityKey(snake(field));
    return key === "zip" || key === "city";
  });
  return (
    places.length > 0 &&
    places.every(([field, value]) => {
      const own = personDetail(person, field);
      return own !== undefined && detailKey(field, own) === detailKey(field, value);
    })
  );
}
