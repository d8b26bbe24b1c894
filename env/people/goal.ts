import type { Goal, WorldRecord } from "../../spec/index.ts";
import { lookup } from "../lookup.ts";
import type { Rng } from "../rng.ts";
import type { EntityModel, ToolModel } from "../world/model.ts";
import { snake } from "../world/model.ts";
import type { SchemaFragment } from "../world/values.ts";
import { money, valueFor } from "../world/values.ts";
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

/** Arguments the agent composes itself rather than asking the person for. */
export const AGENT_WRITTEN = /^(summary|notes?|comment|memo|message|resolution|description)$/;

/**
 * What the person wants from this situation: the call of the situation's tool that would do it,
 * with the values they hold or have in mind, and the request in words (values marked to survive styling).
 */
export function goalOf(world: World, rng: Rng): Goal {
  const tool = world.model.tools.get(world.situation.axes.tool) as ToolModel;
  const entity = world.model.entities.get(tool.entity) as EntityModel;
  const subject = subjectRecord(world, tool);
  const properties = (tool.tool.parameters.properties ?? {}) as Record<string, SchemaFragment>;
  const args: Record<string, unknown> = {};
  const required = new Set(tool.tool.parameters.required ?? []);
  for (const [param, schema] of Object.entries(properties)) {
    const held = lookup(world.person.ids, param);
    // Optional arguments stay out of the request: the person asks for what the tool needs.
    if (!required.has(param) && held === undefined && !tool.idEntities.has(param)) continue;
    if (held !== undefined)
      args[param] = schema.type === "integer" || schema.type === "number" ? Number(held) : held;
    else if (tool.refs.some((r) => r.param === param && r.by === "email"))
      args[param] = world.person.email;
    else if (tool.idEntities.has(param) || param === tool.limitParam) continue;
    else if (param === tool.amountParam) args[param] = amountFor(subject, rng);
    else if (AGENT_WRITTEN.test(snake(param))) continue;
    else
      args[param] = valueFor(snake(param), schema, {
        rng,
        entity: entity.name,
        isPerson: false,
        currency: "USD",
      });
  }
  const goal: Goal = {
    tool: tool.tool.name,
    arguments: args,
    text: requestText(tool, entity, args),
  };
  // Two identical records (the duplicate_records world): the person means one, not knowing its id;
  // either is the goal, and the call that would do it names one of them.
  const duplicates = (world.describe().shaped as { duplicates?: string[] }).duplicates;
  if (
    tool.idParam &&
    duplicates &&
    duplicates.length > 1 &&
    args[tool.idParam] === undefined &&
    tool.entity === world.describe().subject.entity
  ) {
    const [first, ...others] = duplicates as [string, ...string[]];
    args[tool.idParam] = first;
    goal.alternatives = others.map((id) => ({ ...args, [tool.idParam as string]: id }));
  }
  return goal;
}

/** The record the request is about, when the person holds its id and it exists. */
function subjectRecord(world: World, tool: ToolModel): WorldRecord | undefined {
  const state = world.describe();
  if (!state.subject.id) return undefined;
  const entity = world.model.entities.get(state.subject.entity) as EntityModel;
  return tool.idParam ? world.store.get(entity.name, state.subject.id) : undefined;
}

function amountFor(subject: WorldRecord | undefined, rng: Rng): number {
  const total =
    subject &&
    ["total", "amount", "price"].map((f) => subject[f]).find((v) => typeof v === "number");
  return typeof total === "number" ? total : money(rng, 20, 400);
}

/** "cancel my order W1234567 because it arrived damaged", with every value kept verbatim. */
function requestText(tool: ToolModel, entity: EntityModel, args: Record<string, unknown>): string {
  if (tool.kind === "handoff") return "talk to a human";
  const nouns = snake(tool.tool.name).split("_").slice(1).join(" ");
  const named = (param: string) =>
    `my ${(tool.idEntities.get(param) ?? tool.entity).replace(/_/g, " ")} ${keep(String(args[param]))}`;
  const amount =
    tool.amountParam && args[tool.amountParam] !== undefined
      ? keep(Number(args[tool.amountParam]).toFixed(2))
      : null;
  const id =
    tool.idParam && !tool.idByEmail && args[tool.idParam] !== undefined ? tool.idParam : null;
  const parts = [lookup(VERB_WORDS, tool.verb) ?? tool.verb];
  if (id)
    parts.push(nouns === entity.name || nouns === "" ? named(id) : `the ${nouns} of ${named(id)}`);
  else {
    if (amount) parts.push(amount);
    if (!MASS_NOUNS.has(nouns))
      parts.push(`${CREATE_VERBS.has(tool.verb) ? "a new" : "my"} ${nouns || entity.name}`);
  }
  if (id && amount) parts.push(`of ${amount}`);
  for (const ref of tool.refs) {
    if (ref.by !== "id" || args[ref.param] === undefined) continue;
    const direction =
      ref === tool.debit
        ? "from"
        : ref === tool.credit || ref.role === "to"
          ? "to"
          : ref.entity === entity.parent?.entity
            ? "from"
            : tool.debit
              ? "to"
              : "for";
    parts.push(`${direction} ${named(ref.param)}`);
  }
  for (const [param, value] of Object.entries(args)) {
    if (
      param === tool.idParam ||
      param === tool.amountParam ||
      tool.refs.some((r) => r.param === param)
    )
      continue;
    parts.push(argumentPhrase(param, value));
  }
  return parts.join(" ");
}

const MASS_NOUNS = new Set(["funds", "fund", "money", "bill", "cash"]);
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

/** A non-identifier argument as a person says it: "to 5 Quay Street", "because it arrived damaged". */
export function argumentPhrase(param: string, value: unknown): string {
  const key = snake(param);
  const v = keep(
    typeof value === "object" && value !== null
      ? JSON.stringify(value)
      : String(value).replace(/_/g, " "),
  );
  if (/address/.test(key)) return `to ${v}`;
  if (/reason/.test(key)) return `because ${v}`;
  if (/variant|size|colou?r/.test(key)) return `for ${v}`;
  if (/priority/.test(key)) return `with ${v} priority`;
  if (/subject|title|issue/.test(key)) return `about "${v}"`;
  if (/date/.test(key)) return `on ${v}`;
  return `with ${key.replace(/_/g, " ")} ${v}`;
}
