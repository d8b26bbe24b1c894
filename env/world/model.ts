import type { ToolDefinition } from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import { lookup } from "../lookup.ts";
import { verbOf } from "../tools.ts";
import { type ArgumentCheck, argumentCheck } from "./arguments.ts";
import { type IdFormat, type IdParameter, idFormat, uniquePrefix } from "./ids.ts";
import { plural, type SchemaFragment, singular } from "./values.ts";
import { STATUS_AFTER, STATUSES } from "./vocabulary.ts";

/** What a tool does to the world. */
export type ToolKind = "read_one" | "read_many" | "change" | "create" | "handoff";

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
  statuses: { usable: string[]; terminal: string[] };
  /** The person's own entity (customer or user). */
  isPerson: boolean;
  /** Numeric fields that hold the money the record has (balances), moved by transfers and payments. */
  balanceFields: string[];
  /** Whether records of it exist before any call (false for what only a tool creates, such as transfers). */
  seeded: boolean;
}

/** An argument that must name an existing record. */
export interface Ref {
  param: string;
  entity: string;
  /** Direction of a money movement, from the parameter's prefix (`from_account_id`, `to_account_id`). */
  role: "from" | "to" | null;
  by: "id" | "email";
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
  /** Fields an answer shows (from the output schema or the description), or null for all of them. */
  view: string[] | null;
  /** change: arguments written onto the record, argument → field. */
  sets: Map<string, string>;
  statusAfter: string | null;
  /** read_many: arguments that filter on a record field, and the one that caps the count. */
  filters: string[];
  limitParam: string | null;
  /** read_many: a free-text search argument (`query`), matched against the whole record. */
  search: string | null;
  amountParam: string | null;
  /** create with an amount: the record money leaves (`from_…`, else the first id) and the one it reaches (`to_…`). */
  debit: Ref | null;
  credit: Ref | null;
  check: ArgumentCheck;
  /** Example values in parameter descriptions, by parameter: an agent echoing one is refused. */
  examples: Map<string, string>;
  /** The entity each identifier argument names (the target's and the refs'), for quick lookups. */
  idEntities: Map<string, string>;
}

const STOP = new Set([
  "to",
  "for",
  "by",
  "of",
  "the",
  "a",
  "an",
  "with",
  "from",
  "in",
  "on",
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
]);
const LIST_VERBS = new Set(["list", "search", "find", "browse", "query", "filter"]);
const PERSON_WORDS = new Set(["customer", "user", "client", "member", "profile", "person"]);
const FROM = /^(from|source|src|origin|sender|payer|debit)_/;
const TO = /^(to|destination|dest|dst|target|recipient|receiver|credit)_/;
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
const MASS_NOUNS = new Set(["fund", "money", "cash", "bill", "amount"]);
const HANDOFF =
  /^(transfer|handoff|hand_off|escalate|connect|route)_.*(human|agent|representative|operator|support|person|staff)/;
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
const SEARCH_PARAMS = /^(query|q|search|search_query|search_term|keyword|keywords|term|text)$/;
const BALANCE_FIELDS = ["balance", "current", "available", "current_balance", "available_balance"];
const EXAMPLE =
  /(?:such as|e\.g\.,?|for example,?|like|example:)\s*[`"']?([A-Za-z0-9][A-Za-z0-9_@.-]{2,40}[A-Za-z0-9])/i;

/** snake_case of a parameter name: `orderId` → `order_id`. */
export function snake(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/-/g, "_")
    .toLowerCase();
}

const cache = new WeakMap<Agent, WorldModel>();

/** The entities and tool semantics of a spec, inferred once per agent and shared by all its worlds. */
export class WorldModel {
  readonly entities = new Map<string, EntityModel>();
  readonly tools = new Map<string, ToolModel>();
  readonly person: EntityModel;

  /** The model of an agent's tools, built on first use. */
  static of(agent: Agent): WorldModel {
    let model = cache.get(agent);
    if (!model) {
      model = new WorldModel(agent.tools);
      cache.set(agent, model);
    }
    return model;
  }

  private constructor(tools: readonly ToolDefinition[]) {
    const params = tools.flatMap((t) => Object.keys(t.parameters.properties ?? {}).map(snake));
    const personName =
      params.includes("user_id") && !params.includes("customer_id") ? "user" : "customer";
    this.person = this.#newEntity(personName, true);
    this.person.fields = new Map((DEFAULT_FIELDS.customer as string[]).map((f) => [f, undefined]));
    for (const tool of tools) this.tools.set(tool.name, this.#analyse(tool));
    this.#finish(tools);
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
      statuses: lookup(STATUSES, name) ?? (STATUSES.default as EntityModel["statuses"]),
      isPerson,
      balanceFields: [],
      seeded: true,
    };
    this.entities.set(name, entity);
    return entity;
  }

  #analyse(tool: ToolDefinition): ToolModel {
    const verb = verbOf(tool.name);
    const nouns = snake(tool.name)
      .split("_")
      .slice(1)
      .filter((w) => w && !STOP.has(w));
    const noun = singular(nouns[0] ?? verb);
    const properties = (tool.parameters.properties ?? {}) as Record<string, SchemaFragment>;
    const refs: Ref[] = [];
    for (const param of Object.keys(properties)) {
      const key = snake(param);
      if (/(^|_)email(_address)?$/.test(key))
        refs.push({ param, entity: this.person.name, role: null, by: "email" });
      else if (/(^|_)id$/.test(key)) {
        const role = FROM.test(key) ? "from" : TO.test(key) ? "to" : null;
        const bare = key.replace(FROM, "").replace(TO, "").replace(/_?id$/, "");
        const entity = this.#entity(bare === "" ? noun : bare);
        // A spec that spells ids in camelCase (ticketId) gets records keyed the same way.
        if (role === null && bare !== "" && param !== key && entity.idField === `${entity.name}_id`)
          entity.idField = param;
        refs.push({ param, entity: entity.name, role, by: "id" });
      }
    }
    const model: ToolModel = {
      tool,
      kind: "read_one",
      verb,
      entity: noun,
      idParam: null,
      idByEmail: false,
      refs: [],
      view: viewOf(tool),
      sets: new Map(),
      statusAfter: null,
      filters: [],
      search: null,
      limitParam:
        Object.keys(properties).find((p) =>
          /^(limit|max_results|count|page_size|top)$/.test(snake(p)),
        ) ?? null,
      amountParam: Object.keys(properties).find((p) => /(^|_)amount$/.test(snake(p))) ?? null,
      debit: null,
      credit: null,
      check: argumentCheck(tool.parameters),
      examples: examplesOf(properties),
      idEntities: new Map(),
    };
    this.#target(model, noun, nouns[0], refs);
    model.refs = refs.filter((r) => r.param !== model.idParam || r.by === "email");
    model.idByEmail = refs.some((r) => r.param === model.idParam && r.by === "email");
    if (model.idParam && !model.idByEmail) model.idEntities.set(model.idParam, model.entity);
    for (const ref of model.refs) if (ref.by === "id") model.idEntities.set(ref.param, ref.entity);
    if (model.kind === "change") {
      model.statusAfter = lookup(STATUS_AFTER, verb) ?? null;
      for (const param of Object.keys(properties)) {
        if (param === model.idParam || refs.some((r) => r.param === param)) continue;
        model.sets.set(
          param,
          param === model.amountParam ? `${model.statusAfter ?? verb}_amount` : snake(param),
        );
      }
    }
    if (model.kind === "create" && model.amountParam) {
      const accounts = model.refs.filter((r) => r.by === "id" && !this.#isPerson(r.entity));
      const roled = accounts.some((r) => r.role !== null);
      model.debit =
        accounts.find((r) => r.role === "from") ?? (roled ? null : (accounts[0] ?? null));
      model.credit = accounts.find((r) => r.role === "to") ?? null;
    }
    if (model.kind === "read_many") {
      model.search = Object.keys(properties).find((p) => SEARCH_PARAMS.test(snake(p))) ?? null;
      model.filters = Object.keys(properties).filter(
        (p) => p !== model.limitParam && p !== model.search && !refs.some((r) => r.param === p),
      );
    }
    return model;
  }

  /** Decides the entity a tool acts on, the argument naming it, and so the tool's kind. */
  #target(model: ToolModel, noun: string, firstNoun: string | undefined, refs: Ref[]): void {
    const { tool, verb } = model;
    const idRefs = refs.filter((r) => r.by === "id");
    const own = idRefs.find((r) => r.entity === noun && !this.#isPerson(r.entity));
    const others = idRefs.filter((r) => !this.#isPerson(r.entity));
    const personRef =
      idRefs.find((r) => this.#isPerson(r.entity)) ?? refs.find((r) => r.by === "email");
    const listing =
      tool.access === "read" &&
      (LIST_VERBS.has(verb) || (firstNoun !== undefined && singular(firstNoun) !== firstNoun));
    if (HANDOFF.test(snake(tool.name))) {
      model.kind = "handoff";
      model.entity = this.#entity("handoff").name;
      return;
    }
    if (own && !listing) {
      model.entity = own.entity;
      model.idParam = own.param;
    } else if (listing) {
      model.entity = this.#entity(noun).name;
    } else if (others.length === 1 && !(tool.access === "write" && model.amountParam)) {
      model.entity = (others[0] as Ref).entity;
      model.idParam = (others[0] as Ref).param;
    } else if (
      others.length === 0 &&
      personRef &&
      (tool.access === "read" || PERSON_WORDS.has(noun))
    ) {
      model.entity = this.person.name;
      model.idParam = personRef.param;
    } else if (tool.access === "write") {
      const name =
        MASS_NOUNS.has(noun) || noun === verb ? (lookup(RECORD_OF_VERB, verb) ?? noun) : noun;
      model.entity = this.#entity(name).name;
    } else {
      model.entity = this.#entity(noun).name;
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

  /** Fields, parents, balances and id shapes, once every tool has been read. */
  #finish(tools: readonly ToolDefinition[]): void {
    for (const model of this.tools.values()) {
      const entity = this.entities.get(model.entity) as EntityModel;
      const output = model.tool.output_schema?.properties as
        | Record<string, SchemaFragment>
        | undefined;
      const properties = (model.tool.parameters.properties ?? {}) as Record<string, SchemaFragment>;
      for (const field of model.view ?? []) {
        if (field !== entity.idField)
          entity.fields.set(field, output?.[field] ?? entity.fields.get(field));
      }
      for (const param of model.filters) entity.fields.set(snake(param), properties[param]);
      const parent =
        model.kind === "create"
          ? undefined
          : model.refs.find(
              (r) => r.by === "id" && r.entity !== entity.name && !this.#isPerson(r.entity),
            );
      if (parent && !entity.parent)
        entity.parent = {
          entity: parent.entity,
          field: (this.entities.get(parent.entity) as EntityModel).idField,
        };
      for (const ref of [model.debit, model.credit])
        if (ref) (this.entities.get(ref.entity) as EntityModel).balanceFields.push("balance");
    }
    for (const model of this.tools.values()) {
      const entity = this.entities.get(model.entity) as EntityModel;
      const properties = (model.tool.parameters.properties ?? {}) as Record<string, SchemaFragment>;
      for (const [param, field] of model.sets) {
        const resolved = fieldFor(entity, field);
        model.sets.set(param, resolved);
        if (!entity.fields.has(resolved)) entity.written.set(resolved, properties[param]);
      }
    }
    for (const entity of this.entities.values()) {
      // Records only a create makes (transfers, payments) start empty; anything read, listed, changed or named by id is seeded.
      const used = [...this.tools.values()].some(
        (t) =>
          (t.entity === entity.name && t.kind !== "create") ||
          t.refs.some((r) => r.entity === entity.name) ||
          (t.idParam !== null && t.entity === entity.name),
      );
      if (!used) entity.seeded = false;
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
      entity.idFormat = this.#idFormatOf(entity, tools, uniquePrefix(entity.name, prefixes));
    }
  }

  /** The id shape of an entity, from every parameter that names one of its records. */
  #idFormatOf(entity: EntityModel, tools: readonly ToolDefinition[], prefix: string): IdFormat {
    const params: IdParameter[] = [];
    for (const tool of tools) {
      const model = this.tools.get(tool.name) as ToolModel;
      for (const [param, schema] of Object.entries(
        (tool.parameters.properties ?? {}) as Record<string, SchemaFragment>,
      )) {
        const ref = model.refs.find((r) => r.param === param);
        const namesIt = ref
          ? ref.by === "id" && ref.entity === entity.name
          : model.idParam === param && model.entity === entity.name;
        if (namesIt) params.push(schema);
      }
    }
    return idFormat(entity.name, params, prefix);
  }

  #isPerson(entity: string): boolean {
    return this.entities.get(entity)?.isPerson === true;
  }
}

/** The field an argument writes: the same name, else the one field that ends with it (`address` → `shipping_address`). */
function fieldFor(entity: EntityModel, field: string): string {
  if (entity.fields.has(field)) return field;
  const matches = [...entity.fields.keys()].filter(
    (f) => f.endsWith(`_${field}`) || f.startsWith(`${field}_`),
  );
  return matches.length === 1 ? (matches[0] as string) : field;
}

/** Fields an answer shows: the output schema's properties, or a list in the description ("…: items, status and total"). */
function viewOf(tool: ToolDefinition): string[] | null {
  const output = tool.output_schema?.properties;
  if (output && Object.keys(output).length > 0) return Object.keys(output);
  const list =
    /(?::|returns?|with|including|shows?)\s+([a-z][a-z ,/-]+?(?:\band\b|,)[a-z ,/-]+)\.?$/i.exec(
      tool.description.trim(),
    )?.[1];
  if (!list) return null;
  const fields = list
    .split(/,|\band\b/)
    .map((s) =>
      snake(
        s
          .trim()
          .replace(/^(the|its|a|an)\s+/i, "")
          .replace(/[\s/-]+/g, "_"),
      ),
    )
    .filter((s) => /^[a-z][a-z0-9_]{1,40}$/.test(s) && s.split("_").length <= 4);
  return fields.length >= 2 ? fields : null;
}

function examplesOf(properties: Record<string, SchemaFragment>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [param, schema] of Object.entries(properties)) {
    const example = EXAMPLE.exec(schema.description ?? "")?.[1];
    if (example) out.set(param, example);
  }
  return out;
}
