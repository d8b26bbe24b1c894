import type { WorldRecord } from "../../spec/index.ts";
import { Rng } from "../rng.ts";
import { nameWords } from "../tools.ts";
import { fnv1a } from "../util/hash.ts";
import { snake } from "../util/names.ts";
import { type FieldFill, fitAnswer } from "./answer-shape.ts";
import { calculate, formatResult } from "./calculator.ts";
import { outsideWindow } from "./date-windows.ts";
import { ISO_DAY, WORLD_TODAY } from "./dates.ts";
import { drawDown, drawnRecord, spentOff } from "./draws.ts";
import { detailKey, identityKey } from "./identity.ts";
import {
  answersOne,
  type EntityModel,
  propertiesOf,
  type Ref,
  type ToolModel,
  type WorldModel,
} from "./model.ts";
import { moveSpanEnds } from "./spans.ts";
import { inState, meets, revivesFrom, stateAfter, statusKey } from "./statuses.ts";
import { newestFirst, newRecord, type Store } from "./store.ts";
import { creationAliases, isCatchAll, type SchemaFragment, singular, valueFor } from "./values.ts";
import { DELETE_VERBS, REVIVING_VERBS } from "./vocabulary.ts";

/** A tool's answer before faults: JSON of the result, or the refusal the world says. */
export type Outcome = { ok: true; json: string } | { ok: false; error: Record<string, unknown> };

/** What a call may touch: the world's records and model, and its two side effects. */
export interface WorldAccess {
  readonly store: Store;
  readonly model: WorldModel;
  /** A new id for a created record, stable for the world's seed and the order of creations. */
  newId(entity: EntityModel): string;
  /** Records that the agent handed the conversation off. */
  handOff(): void;
  /** The seed the world was built with: what a pure computation's answer is drawn from. */
  readonly seed: number;
}

/** One call: the world, the tool and its checked arguments. */
interface CallContext {
  store: Store;
  model: WorldModel;
  world: WorldAccess;
  tool: ToolModel;
  args: Record<string, unknown>;
}

const DEFAULT_LIST_LIMIT = 20;
const TODAY_TIME = new Date(WORLD_TODAY).toISOString().replace(/\.\d{3}Z$/, "Z");
/** The states of money that has moved. */
const MONEY_DONE = /^(completed?|posted|paid|processed|succeeded|settled|executed|sent)$/;

/** Runs a tool against the store: reads find, writes change or create, and the world says no where it must. */
export function perform(
  world: WorldAccess,
  tool: ToolModel,
  args: Record<string, unknown>,
): Outcome {
  const ctx: CallContext = { store: world.store, model: world.model, world, tool, args };
  const amount = tool.amountParam ? args[tool.amountParam] : undefined;
  // Money is kept in whole cents: a transfer of 0.004 would round to nothing on one side and to a
  // cent on the other, making or losing money with every call.
  if ((tool.kind === "change" || tool.kind === "create") && !wholeCents(amount)) {
    return refuse(
      "invalid_amount",
      `${String(amount)} has fractions of a cent: an amount takes at most 2 decimals`,
      { argument: tool.amountParam, value: amount },
    );
  }
  // A write takes a day inside the window its tool sets around today.
  if (tool.kind === "change" || tool.kind === "create")
    for (const [param, window] of tool.dateWindows) {
      const outside = outsideWindow(args[param], window);
      if (outside)
        return refuse("invalid_date", `${param} ${String(args[param])} is ${outside}`, {
          argument: param,
          value: args[param],
        });
    }
  switch (ctx.tool.kind) {
    case "read_one":
      return readOne(ctx);
    case "read_many":
      return readMany(ctx);
    case "change":
      return change(ctx);
    case "create":
      return create(ctx);
    case "handoff":
      return handoff(ctx);
    case "utility":
      return utility(ctx);
  }
}

/** Parameters a calculator takes its expression in. */
const EXPRESSION = /^(expression|expr|formula|calculation|math|equation|input|query|arithmetic)$/;
/** A tool that evaluates arithmetic, by its name or description. */
const CALCULATOR = /calculat|comput|arithmetic|math|evaluat|expression/i;
/** A tool that only records the agent's thought. */
const THINKING = /^(think|thinking|reflect|reason|reasoning|scratchpad|plan|note)$/;

/**
 * A tool that serves the agent alone and touches no record: a calculator evaluates its expression
 * (safely, without eval); a thinking tool notes the thought; any other answers what its output
 * schema describes, the same answer for the same arguments, as a pure function would.
 */
function utility(ctx: CallContext): Outcome {
  const { tool, args } = ctx;
  const properties = (tool.tool.parameters.properties ?? {}) as Record<string, SchemaFragment>;
  const strings = Object.keys(properties).filter((p) => properties[p]?.type === "string");
  const expressionParam =
    strings.find((p) => EXPRESSION.test(snake(p))) ??
    (strings.length === 1 ? strings[0] : undefined);
  const named = snake(tool.tool.name);
  if (THINKING.test(named) || Object.keys(properties).some((p) => /thought/i.test(p)))
    return { ok: true, json: JSON.stringify({ noted: true }) };
  if (expressionParam && CALCULATOR.test(`${named} ${tool.tool.description}`)) {
    const result = calculate(String(args[expressionParam] ?? ""));
    if (!result.ok)
      return refuse("invalid_expression", `Could not evaluate the expression: ${result.reason}`, {
        expression: args[expressionParam],
      });
    return { ok: true, json: JSON.stringify({ result: formatResult(result.value) }) };
  }
  const output = (tool.tool.output_schema?.properties ?? {}) as Record<string, SchemaFragment>;
  const rng = new Rng(ctx.world.seed, "utility", tool.tool.name, JSON.stringify(args));
  const answer = newRecord();
  for (const [field, schema] of Object.entries(output))
    answer[field] = valueFor(field, schema, {
      rng,
      entity: tool.entity,
      isPerson: false,
      currency: "USD",
    });
  return { ok: true, json: JSON.stringify(Object.keys(answer).length > 0 ? answer : { ok: true }) };
}

function readOne(ctx: CallContext): Outcome {
  const { tool, store } = ctx;
  const target = resolveTarget(ctx);
  if (!target.ok) return target;
  const refs = resolveRefs(ctx);
  if (!refs.ok) return refs;
  if (tool.verifies.length > 0) return verify(ctx, target.record);
  const { record } = target;
  return {
    ok: true,
    json: store.answer(record, tool.tool.name, () => shownOf(ctx, record, false)),
  };
}

/** A record as the tool's answer shows it: as its output schema shapes it, else the store's view. */
function shownOf(ctx: CallContext, record: WorldRecord, wrote: boolean): WorldRecord {
  return fitted(ctx, ctx.store.view(ctx.tool.entity, record, ctx.tool.view), record, wrote);
}

/** What an answer about `record` shows of `values`: as the tool's output schema shapes it, else all. */
function fitted(
  ctx: CallContext,
  values: WorldRecord,
  record: WorldRecord,
  wrote: boolean,
): WorldRecord {
  const shape = ctx.tool.answer;
  if (!shape) return values;
  // A write's answer is about what it did now: a second payment of an invoice gets its own receipt.
  const now = wrote ? fnv1a(JSON.stringify(values)).toString(16) : "";
  const fill = fillFor(ctx, record, now);
  const shown = wrote && ctx.tool.makes.length > 0 ? newRecord(values) : values;
  if (shown !== values)
    for (const field of ctx.tool.makes) {
      const schema = shape.record.fields[field];
      if (shown[field] === undefined && schema) shown[field] = fill(field, schema);
    }
  return fitAnswer(shape.record, shown, wrote, fill);
}

/**
 * Fills what an answer's schema asks of a record that holds no fitting value: the same value each
 * time the record is shown, and each time a write leaves it the same (`done`: what it shows then).
 */
function fillFor(ctx: CallContext, record: WorldRecord, done = ""): FieldFill {
  const entity = ctx.store.entity(ctx.tool.entity);
  const id = String(record[entity.idField] ?? ctx.tool.tool.name);
  return (field, schema) =>
    valueFor(field, schema, {
      rng: new Rng(ctx.world.seed, "answer", entity.name, id, field, ...(done ? [done] : [])),
      entity: entity.name,
      isPerson: entity.isPerson,
      currency: typeof record.currency === "string" ? record.currency : "USD",
    });
}

/**
 * A check of the details a person gave against their record: whether they match, and which did,
 * never the stored values themselves. Details not given are not checked.
 */
function verify(ctx: CallContext, record: WorldRecord): Outcome {
  const { tool, args, store } = ctx;
  const entity = store.entity(tool.entity);
  const checked = tool.verifies.filter(
    (p) => args[p] !== undefined && record[snake(p)] !== undefined,
  );
  const matched = checked.filter((p) => same(snake(p), record[snake(p)], args[p]));
  const result = newRecord({
    [entity.idField]: record[entity.idField],
    verified: checked.length > 0 && matched.length === checked.length,
    matched,
    did_not_match: checked.filter((p) => !matched.includes(p)),
  });
  return { ok: true, json: JSON.stringify(fitted(ctx, result, record, false)) };
}

function readMany(ctx: CallContext): Outcome {
  const { tool, store, args } = ctx;
  const entity = store.entity(tool.entity);
  const refs = resolveRefs(ctx);
  if (!refs.ok) return refs;
  let records: WorldRecord[] | null = null;
  for (const { ref, record } of refs.records) {
    const refEntity = store.entity(ref.entity);
    const id = record[refEntity.idField] as string;
    const owner = record[ctx.model.person.idField];
    const scoped =
      entity.parent?.entity === ref.entity
        ? store.childrenOf(entity.name, id)
        : refEntity.isPerson
          ? store.ownedBy(entity.name, id)
          : entity.isPerson
            ? // People found by a record of theirs (a policy number): its owner, and those who
              // share it with them (a workspace's users).
              [
                store.get(entity.name, String(owner)),
                ...(ref.entity === ctx.model.group
                  ? [...store.all(entity.name)].filter((r) => r[refEntity.idField] === id)
                  : []),
              ].filter((r): r is WorldRecord => r !== undefined)
            : [...store.all(entity.name)].filter((r) => r[refEntity.idField] === id);
    records = records === null ? scoped : records.filter((r) => scoped.includes(r));
  }
  let list = records ?? [...store.all(entity.name)];
  const query =
    tool.search && typeof args[tool.search] === "string"
      ? (args[tool.search] as string).toLowerCase()
      : "";
  if (query.trim() !== "") {
    // A search matches records whose text holds every word of the query.
    const words = query.split(/[^a-z0-9]+/).filter(Boolean);
    list = list.filter((r) => {
      const text = JSON.stringify(store.view(entity.name, r, null)).toLowerCase();
      return words.every((w) => text.includes(w));
    });
  }
  const properties = propertiesOf(tool);
  for (const param of tool.filters) {
    const wanted = args[param];
    // A filter's catch-all choice (`status: "all"`, `time_of_day: "any"`) filters nothing.
    if (wanted === undefined || isCatchAll(wanted, properties[param])) continue;
    const field = snake(param);
    // `since` and `until` bound the records' own date; they are no field to match.
    const bound = LOWER_BOUND.test(field) ? 1 : UPPER_BOUND.test(field) ? -1 : 0;
    if (bound !== 0 && typeof wanted === "string" && ISO_DAY.test(wanted)) {
      const day = wanted.slice(0, 10);
      list = list.filter((r) => {
        const dated = dayOf(r, field);
        return dated === null || (bound > 0 ? dated >= day : dated <= day);
      });
      continue;
    }
    // A view's choice (`upcoming`) stands for the states it lists.
    const states =
      field === "status" && typeof wanted === "string"
        ? entity.statusViews.get(statusKey(wanted))
        : undefined;
    if (states) {
      list = list.filter((r) => states.includes(r.status as string));
      continue;
    }
    list = list.filter((r) => r[field] === undefined || same(field, r[field], wanted));
  }
  list = newestFirst(list);
  const limit =
    tool.limitParam && typeof args[tool.limitParam] === "number"
      ? (args[tool.limitParam] as number)
      : DEFAULT_LIST_LIMIT;
  const shape = tool.answer;
  if (answersOne(tool)) {
    // A schema or a description of one record answers with the first found, and says so when none is.
    const first = list[0];
    if (first === undefined) return refuse("not_found", `No ${entity.name} matches`, { args });
    return { ok: true, json: JSON.stringify(shownOf(ctx, first, false)) };
  }
  const shown = list.slice(0, Math.max(0, limit)).map((r) => shownOf(ctx, r, false));
  if (!shape?.list) {
    return {
      ok: true,
      json: JSON.stringify({ [entity.collection]: shown, count: shown.length, total: list.length }),
    };
  }
  const more = list.length > shown.length;
  // Beside the list: what the schema says of it, counted, and any property the call was given (`query`).
  const about = newRecord({
    ...args,
    count: shown.length,
    total: list.length,
    total_count: list.length,
    total_results: list.length,
    num_results: list.length,
    result_count: shown.length,
    results_count: shown.length,
    has_more: more,
    more,
    truncated: more,
    page: 1,
    page_size: limit,
    per_page: limit,
    limit,
    offset: 0,
  });
  const answer = newRecord({ [shape.list]: shown });
  Object.assign(answer, fitAnswer(shape.about, about, false, fillFor(ctx, newRecord())));
  return { ok: true, json: JSON.stringify(answer) };
}

function change(ctx: CallContext): Outcome {
  const { tool, store, args } = ctx;
  const entity = store.entity(tool.entity);
  const target = resolveTarget(ctx);
  if (!target.ok) return target;
  const refs = resolveRefs(ctx);
  if (!refs.ok) return refs;
  const { record } = target;
  const id = record[entity.idField] as string;
  for (const { ref, record: parent } of refs.records) {
    if (entity.parent?.entity !== ref.entity) continue;
    const parentId = parent[store.entity(ref.entity).idField];
    if (record[entity.parent.field] !== parentId) {
      return refuse(
        "not_found",
        `${entity.name} ${id} is not part of ${ref.entity} ${String(parentId)}`,
        { looked_up: { [tool.idParam as string]: id, [ref.param]: parentId } },
      );
    }
  }
  const status = record.status as string | undefined;
  // A final record takes no change, unless the tool is for records in that state (sending the
  // invoice of a stay that ended), or brings such records back (reopening a closed ticket).
  const revives =
    REVIVING_VERBS.has(tool.verb) &&
    status !== undefined &&
    revivesFrom(tool.tool.description ?? "", entity.statuses, status);
  if (
    status &&
    entity.statuses.terminal.includes(status) &&
    !revives &&
    !tool.requires?.statuses.includes(status)
  ) {
    return refuse("invalid_state", `${entity.name} ${id} is ${status}; it cannot be changed`, {
      status,
    });
  }
  if (tool.statusAfter && inState(status, tool.statusAfter)) {
    return refuse("invalid_state", `${entity.name} ${id} is already ${status}`, { status });
  }
  if (!meets(tool.requires, status)) {
    const wanted = tool.requires?.statuses ?? [];
    return refuse(
      "invalid_state",
      `${entity.name} ${id} is ${status}; ${tool.tool.name} ${wanted.length > 0 ? `acts only on a ${entity.name} that is ${wanted.join(" or ")}` : `cannot act on a ${entity.name} that is ${status}`}`,
      { status, ...(wanted.length > 0 ? { required_status: wanted } : {}) },
    );
  }
  const amount = tool.amountParam ? args[tool.amountParam] : undefined;
  const cap = ["total", "amount", "price"].find((f) => typeof record[f] === "number");
  if (typeof amount === "number" && cap && amount > (record[cap] as number)) {
    return refuse(
      "invalid_amount",
      `${amount} is more than the ${entity.name}'s ${cap} of ${record[cap]}`,
      { [cap]: record[cap] },
    );
  }
  const draw = tool.draws;
  const drawn = draw ? drawnRecord(store, draw, record, refs.records) : undefined;
  const wanted = draw ? args[draw.param] : undefined;
  const held = draw && drawn ? drawn[draw.field] : undefined;
  const drawing = draw && drawn && typeof wanted === "number" && typeof held === "number";
  if (drawing && wanted > held + 0.001) {
    return refuse(
      draw.onTarget ? "invalid_amount" : "insufficient_balance",
      `${wanted} is more than the ${draw.entity}'s ${draw.field} of ${held}`,
      { [draw.field]: held, requested: wanted },
    );
  }
  // Sending a one-time code to the person leaves their record as it was.
  if (tool.sends)
    return {
      ok: true,
      json: JSON.stringify(fitted(ctx, newRecord({ ...args, sent: true }), record, true)),
    };
  // `remove_user(workspace_id, user_id)` removes a user, not the workspace it names: a record goes
  // only when the tool's name names it.
  if (DELETE_VERBS.has(tool.verb) && namesEntity(tool, entity)) {
    store.remove(entity.name, id);
    const deleted = newRecord({ [entity.idField]: id, deleted: true });
    return { ok: true, json: JSON.stringify(fitted(ctx, deleted, record, true)) };
  }
  const changed = store.writable(entity.name, record);
  const before = new Map<string, unknown>();
  for (const [param, field] of tool.sets) {
    if (args[param] === undefined) continue;
    if (!before.has(field)) before.set(field, changed[field]);
    const value = asStored(args[param], propertiesOf(tool)[param]);
    // A detail of a part the tool is named for (`update_direct_debit`'s `collection_day`) is
    // written in that part (`direct_debit.collection_day`), not beside it.
    const inPart = partHolding(changed, tool, field);
    if (inPart) {
      const part = changed[inPart.part] as Record<string, unknown>;
      changed[inPart.part] = { ...part, [inPart.key]: value };
      continue;
    }
    // `additional_bags: 2` adds to the bags the record holds.
    const held = changed[field];
    changed[field] =
      tool.adds.has(param) && typeof held === "number" && typeof value === "number"
        ? held + value
        : value;
  }
  if (tool.toggles && typeof (changed[tool.toggles.field] ?? false) === "boolean")
    changed[tool.toggles.field] = tool.toggles.on;
  for (const { ref, record: chosen } of refs.records) pointTo(ctx, changed, ref, chosen);
  moveSpanEnds(changed, before, args);
  if (tool.composes) {
    const given = tool.composes.parts
      .map((param) => args[param])
      .filter(
        (v): v is string | number =>
          (typeof v === "string" && v.trim() !== "") || typeof v === "number",
      );
    if (given.length > 0) changed[tool.composes.field] = given.join(", ");
  }
  if (tool.statusAfter) changed.status = stateAfter(entity.statuses, tool.statusAfter, args);
  if (drawing) {
    drawDown(store, draw, draw.onTarget ? changed : drawn, wanted);
    if (!draw.onTarget) spentOff(draw, changed, wanted);
  }
  changed.updated_at = TODAY_TIME;
  store.changed(entity.name, changed);
  return { ok: true, json: JSON.stringify(shownOf(ctx, changed, true)) };
}

/** A list's bounds on its records' dates: on or after, on or before a day. */
const LOWER_BOUND = /^(since|after|not_before|on_or_after)$/;
const UPPER_BOUND = /^(until|before|not_after|on_or_before)$/;

/** The fields that say when a record is dated, first to last. */
const DATED = [/^date$/, /_date$/, /^(issued_at|created_at|created)$/];

/** The day a record is dated: its `date`, else a `…_date`, else when it was made; null when it has none. */
function dayOf(record: WorldRecord, bound: string): string | null {
  for (const dated of DATED)
    for (const [field, value] of Object.entries(record))
      if (field !== bound && dated.test(field) && typeof value === "string" && ISO_DAY.test(value))
        return value.slice(0, 10);
  return null;
}

/**
 * A change named for the record it points to (`switch_tariff(account_number, tariff_code)`)
 * makes the target's field of that name (`tariff`) the chosen record: its id where the field
 * holds one, and where it holds an object, that object with its code or id and the details the
 * chosen record shares with it (a name, a type).
 */
function pointTo(ctx: CallContext, changed: WorldRecord, ref: Ref, chosen: WorldRecord): void {
  const { tool, store } = ctx;
  if (ref.many || ref.by !== "id" || ref.role === "from") return;
  const field = ref.entity;
  const held = changed[field];
  // `modify_pending_order_payment` names the payment method it points the order to.
  const words = new Set(nameWords(tool.tool.name));
  const named = field.split("_").some((w) => words.has(w));
  const id = chosen[store.entity(ref.entity).idField];
  if (held === undefined) {
    // Another record of the same kind (who asked for a user's role to change) is no place to move to.
    if ((named || ref.role === "new") && ref.entity !== tool.entity)
      movedTo(ctx, changed, ref, chosen, ref.role === "new");
    return;
  }
  if (!named) return;
  if (typeof held === "string" || typeof held === "number") {
    changed[field] = id as string;
    return;
  }
  if (held === null || typeof held !== "object" || Array.isArray(held)) return;
  const before = held as Record<string, unknown>;
  const key = Object.keys(before).find((k) => /(^|_)(code|id)$/.test(k));
  if (key === undefined) return;
  const after: Record<string, unknown> = { ...before, [key]: id };
  for (const k of Object.keys(before))
    if (k !== key && chosen[k] !== undefined && typeof chosen[k] === typeof before[k])
      after[k] = chosen[k];
  changed[field] = after;
}

/**
 * A record moved to another (`change_plan(line_id, plan_code)`) keeps the other's id; moved to a
 * new one (`reschedule_appointment(appointment_id, new_slot_id)`) it also takes what the two share
 * (a slot's `start` and `therapist_name`): a later read shows where it is now.
 */
function movedTo(
  ctx: CallContext,
  changed: WorldRecord,
  ref: Ref,
  chosen: WorldRecord,
  shared: boolean,
): void {
  const { store, model } = ctx;
  const entity = store.entity(ref.entity);
  changed[entity.idField] = chosen[entity.idField];
  if (!shared) return;
  const own = store.entity(ctx.tool.entity).idField;
  for (const [key, value] of Object.entries(chosen)) {
    if (!(key in changed) || key === own || key === model.person.idField) continue;
    if (MOVED_NOT.test(key) || typeof value !== typeof changed[key]) continue;
    changed[key] = value;
  }
}

/** What a record moved to another keeps its own: its name, status and dates of record. */
const MOVED_NOT = /^(name|status|created_at|updated_at)$/;

/**
 * The field of a record holding an object that a change's name names (`direct_debit` for
 * `update_direct_debit`) and that holds `field` itself, when the record keeps no `field` of its
 * own: where that detail lives, with its name there (`monthly_amount_gbp` for `monthly_amount`).
 */
function partHolding(
  record: WorldRecord,
  tool: ToolModel,
  field: string,
): { part: string; key: string } | null {
  if (field in record) return null;
  const words = new Set(nameWords(tool.tool.name));
  const parts: { part: string; key: string }[] = [];
  for (const [part, value] of Object.entries(record)) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) continue;
    if (!part.split("_").every((w) => words.has(w))) continue;
    const key = keyFor(value as Record<string, unknown>, field);
    if (key) parts.push({ part, key });
  }
  return parts.length === 1 ? (parts[0] as { part: string; key: string }) : null;
}

/** The key of an object that holds `field`: the field itself, else the one key named with it before or after. */
function keyFor(value: Record<string, unknown>, field: string): string | null {
  if (field in value) return field;
  const named = Object.keys(value).filter(
    (k) => k.startsWith(`${field}_`) || k.endsWith(`_${field}`),
  );
  return named.length === 1 ? (named[0] as string) : null;
}

/** Whether a tool's name names the records of an entity (`delete_payee` names payee). */
function namesEntity(tool: ToolModel, entity: EntityModel): boolean {
  const words = new Set(nameWords(tool.tool.name).map(singular));
  return entity.name.split("_").every((part) => words.has(part));
}

function create(ctx: CallContext): Outcome {
  const { tool, store, args, model } = ctx;
  const entity = store.entity(tool.entity);
  const refs = resolveRefs(ctx);
  if (!refs.ok) return refs;
  for (const { ref, record } of refs.records) {
    const refEntity = store.entity(ref.entity);
    const status = record.status as string | undefined;
    if (status && refEntity.statuses.terminal.includes(status)) {
      return refuse(
        "invalid_state",
        `${ref.entity} ${String(record[refEntity.idField])} is ${status}`,
        { [ref.param]: record[refEntity.idField], status },
      );
    }
  }
  const recordOf = (ref: Ref | null) =>
    ref ? refs.records.find((r) => r.ref === ref)?.record : undefined;
  const debit = recordOf(tool.debit);
  const credit = recordOf(tool.credit);
  const amount = tool.amountParam ? args[tool.amountParam] : undefined;
  if (debit && credit && debit === credit) {
    return refuse("invalid_arguments", "the money would leave and reach the same record", {
      problems: [
        `${tool.debit?.param} and ${tool.credit?.param} name the same ${tool.debit?.entity}`,
      ],
    });
  }
  if (typeof amount === "number" && debit) {
    const debitEntity = store.entity((tool.debit as Ref).entity);
    const spendable =
      debitEntity.balanceFields.find((f) => /available/.test(f)) ?? debitEntity.balanceFields[0];
    if (
      spendable &&
      typeof debit[spendable] === "number" &&
      (debit[spendable] as number) < amount
    ) {
      return refuse(
        "insufficient_funds",
        `${debitEntity.name} ${String(debit[debitEntity.idField])} has ${debit[spendable]} available, less than ${amount}`,
        {
          available: debit[spendable],
          requested: amount,
        },
      );
    }
  }
  const owner =
    refs.records.find(({ ref }) => store.entity(ref.entity).isPerson)?.record ??
    debit ??
    refs.records[0]?.record;
  const record = newRecord({ [entity.idField]: ctx.world.newId(entity) });
  if (typeof amount === "number" && debit) {
    const note = `${tool.tool.name.replace(/_/g, " ")} ${String(record[entity.idField])}`;
    move(ctx, store.entity((tool.debit as Ref).entity), debit, -amount, note);
    if (credit) move(ctx, store.entity((tool.credit as Ref).entity), credit, amount, note);
  }
  const ownerField = model.person.idField;
  if (owner?.[ownerField] !== undefined) record[ownerField] = owner[ownerField];
  copyArguments(record, entity, tool, args);
  record.status = createdStatus(entity, tool, debit !== undefined);
  record.created_at = TODAY_TIME;
  creationAliases(record, new Set(Object.keys(args).map(snake)));
  store.add(entity.name, record);
  return { ok: true, json: JSON.stringify(shownOf(ctx, record, true)) };
}

/** A state quoted after "status" where a description says what a call returns or creates: "Returns a port_request_id (status 'port_pending')". */
const SAID_STATUS =
  /\b(?:returns?|creates?|created|new)\b[^.]{0,120}?\bstatus\W{0,3}['"‘“]([a-z][a-z_ -]{1,28}[a-z])['"’”]/i;

/**
 * The status a new record starts in: money moved is `completed` (or `posted`, `paid`…, as its
 * entity says it); a state named for what the tool does is that one (`port_in_number` →
 * `port_pending`, as its description says); anything else its entity's first usable state (a booking `confirmed` or
 * `upcoming`, a claim `draft`, a ticket `open`), never a later one (`past`, `in_house`).
 */
function createdStatus(entity: EntityModel, tool: ToolModel, movedMoney: boolean): string {
  const usable = entity.statuses.usable;
  if (movedMoney) {
    const done = usable.find((s) => MONEY_DONE.test(s));
    if (done) return done;
  }
  // The state its description says a new one is in ("Returns a port_request_id (status 'port_pending')").
  const said = SAID_STATUS.exec(tool.tool.description ?? "");
  const named = said ? statusKey(said[1] as string) : undefined;
  if (named && usable.includes(named)) return named;
  const words = new Set(
    nameWords(tool.tool.name).filter((w) => !entity.name.split("_").includes(w)),
  );
  return usable.find((s) => s.split("_").some((w) => words.has(w))) ?? usable[0] ?? "active";
}

function handoff(ctx: CallContext): Outcome {
  const { store, tool, args } = ctx;
  const entity = store.entity(tool.entity);
  const record = newRecord({ [entity.idField]: ctx.world.newId(entity), status: "transferred" });
  copyArguments(record, entity, tool, args);
  store.add(entity.name, record);
  ctx.world.handOff();
  return {
    ok: true,
    json: JSON.stringify({ ...record, message: "A human agent will take over this conversation." }),
  };
}

/**
 * Copies a call's declared arguments onto a new record. Arguments the schema does not declare are
 * ignored, and none may overwrite the record's id: a call cannot rewrite another record this way.
 */
function copyArguments(
  record: WorldRecord,
  entity: EntityModel,
  tool: ToolModel,
  args: Record<string, unknown>,
): void {
  const declared = tool.tool.parameters.properties ?? {};
  for (const [param, value] of Object.entries(args)) {
    const field = snake(param);
    if (!Object.hasOwn(declared, param) || field === entity.idField || param === entity.idField)
      continue;
    record[field] = asStored(value, declared[param] as SchemaFragment);
  }
}

/**
 * A value as a record keeps it: a list of an enum's choices (`document_types`) is a set, kept in
 * the enum's order, so the same choices named in another order leave the same record.
 */
function asStored(value: unknown, schema: SchemaFragment | undefined): unknown {
  const choices = schema?.items?.enum;
  if (!Array.isArray(value) || !Array.isArray(choices) || !value.every((v) => choices.includes(v)))
    return value;
  return [...value].sort((a, b) => choices.indexOf(a) - choices.indexOf(b));
}

/** Whether an amount argument, when it is a number, is in whole cents (absent or other types are the schema check's). */
function wholeCents(amount: unknown): boolean {
  return typeof amount !== "number" || Number(amount.toFixed(2)) === amount;
}

/** Moves money in or out of a record's balances, and enters it in the record's ledger when it has one (an account's transactions). */
function move(
  ctx: CallContext,
  entity: EntityModel,
  record: WorldRecord,
  delta: number,
  note: string,
): void {
  const { store, model } = ctx;
  const changed = store.writable(entity.name, record);
  for (const field of entity.balanceFields) {
    if (typeof changed[field] === "number")
      changed[field] = Math.round(((changed[field] as number) + delta) * 100) / 100;
  }
  store.changed(entity.name, changed);
  const ledger = [...model.entities.values()].find(
    (c) => c.parent?.entity === entity.name && c.fields.has("amount"),
  );
  if (!ledger) return;
  const entry = newRecord({
    [ledger.idField]: ctx.world.newId(ledger),
    [entity.idField]: record[entity.idField],
  });
  if (ledger.fields.has("date")) entry.date = TODAY_TIME.slice(0, 10);
  if (ledger.fields.has("description")) entry.description = note;
  entry.amount = Math.abs(delta);
  if (ledger.fields.has("type")) entry.type = delta < 0 ? "transfer_out" : "transfer_in";
  entry.status = ledger.statuses.usable[0] ?? "posted";
  store.add(ledger.name, entry);
}

function resolveTarget(
  ctx: CallContext,
): { ok: true; record: WorldRecord } | { ok: false; error: Record<string, unknown> } {
  const { tool, store, args } = ctx;
  const param = tool.idParam as string;
  const entity = store.entity(tool.entity);
  // Without the id there is no record to act on: the call is refused, not a lookup of "undefined".
  if (args[param] === undefined)
    return refuse("invalid_arguments", `The arguments to ${tool.tool.name} were refused`, {
      problems: [`"${param}" names the ${entity.name} it acts on; none was given`],
    });
  const value = String(args[param]);
  const id = tool.idByEmail ? store.personByEmail(value) : value;
  const record = id === undefined ? undefined : store.get(entity.name, id);
  return record ? { ok: true, record } : notFound(entity.name, param, value);
}

function resolveRefs(
  ctx: CallContext,
):
  | { ok: true; records: { ref: Ref; record: WorldRecord }[] }
  | { ok: false; error: Record<string, unknown> } {
  const { tool, store, args } = ctx;
  const records: { ref: Ref; record: WorldRecord }[] = [];
  for (const ref of tool.refs) {
    if (ref.param === tool.idParam && ref.by === "email" && tool.kind !== "read_many") continue;
    const value = args[ref.param];
    if (value === undefined) continue;
    if (ref.many) {
      // A list of ids: each must name a record, and one that belongs to the target when its kind does (an order's items).
      for (const one of Array.isArray(value) ? value : [value]) {
        const record = store.get(ref.entity, String(one));
        if (!record) return notFound(ref.entity, ref.param, String(one));
        const parent = store.entity(ref.entity).parent;
        const target = tool.idParam ? args[tool.idParam] : undefined;
        if (
          ref.role !== "new" &&
          parent?.entity === tool.entity &&
          target !== undefined &&
          record[parent.field] !== String(target)
        )
          return refuse(
            "not_found",
            `${ref.entity} ${String(one)} is not part of ${tool.entity} ${String(target)}`,
            {
              looked_up: { [ref.param]: one, [tool.idParam as string]: target },
            },
          );
      }
      continue;
    }
    const id = ref.by === "email" ? store.personByEmail(String(value)) : String(value);
    const record = id === undefined ? undefined : store.get(ref.entity, id);
    if (!record) return notFound(ref.entity, ref.param, String(value));
    records.push({ ref, record });
  }
  for (const nested of tool.nested) {
    const value = args[nested.param];
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      if (item === null || typeof item !== "object") continue;
      const id = (item as Record<string, unknown>)[nested.key];
      if (id === undefined || store.has(nested.entity, String(id))) continue;
      return notFound(nested.entity, `${nested.param}.${nested.key}`, String(id));
    }
  }
  return { ok: true, records };
}

function notFound(
  entity: string,
  param: string,
  value: string,
): { ok: false; error: Record<string, unknown> } {
  return refuse("not_found", `No ${entity} found with ${param} "${value}"`, {
    looked_up: { [param]: value },
  });
}

/** A refusal: an error code, a message an agent can act on, and details. */
export function refuse(
  error: string,
  message: string,
  details: Record<string, unknown> = {},
): { ok: false; error: Record<string, unknown> } {
  return { ok: false, error: { error, message, ...details } };
}

/**
 * Whether a record's field holds the value asked for, as a person would mean it: a phone by its
 * digits, a name or an address whatever its case, accents and spacing, a zip without spaces.
 */
function same(field: string, a: unknown, b: unknown): boolean {
  if (typeof a === "number" || typeof b === "number") return Number(a) === Number(b);
  if (typeof a !== "string" || typeof b !== "string") return a === b;
  if (identityKey(field)) return detailKey(field, a) === detailKey(field, b);
  return (
    a.toLowerCase().replace(/\s+/g, " ").trim() === b.toLowerCase().replace(/\s+/g, " ").trim()
  );
}
