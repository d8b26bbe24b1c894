import {
  type Fault,
  type PersonDetails,
  type Situation,
  SituationSchema,
  type WorldRecord,
  type WorldSnapshot,
  WorldSnapshotSchema,
  type WorldState,
} from "../../spec/index.ts";
import { Agent } from "../agent.ts";
import { bareJson } from "../arguments.ts";
import { Rng } from "../rng.ts";
import { MAX_DEPTH, nestsDeeper } from "../schema-checks.ts";
import { copyData } from "../util/copy.ts";
import { InputError, type InputIssue, issuesOf } from "../util/errors.ts";
import { buildWorld } from "./build.ts";
import {
  RESULT_FAULTS,
  SERVER_FAULTS,
  scheduleFaults,
  serverFaultAnswer,
  spoil,
} from "./faults.ts";
import { uniqueId } from "./ids.ts";
import { type EntityModel, type ToolModel, WorldModel } from "./model.ts";
import { type Outcome, perform, refuse, type WorldAccess } from "./operations.ts";
import { placeholderReason } from "./placeholders.ts";
import { frozenRecord, Store } from "./store.ts";

/** A tool's answer as the agent sees it: `content` is the tool message; `error` is the refusal's code. */
export interface ToolAnswer {
  ok: boolean;
  content: string;
  error?: string;
}

/** A world's records at a moment (copies, never changed), by entity and id. */
export interface Baseline {
  readonly records: ReadonlyMap<string, ReadonlyMap<string, WorldRecord>>;
}

/** How a world began: its records then, and the person and state it was built with. */
export interface WorldStart {
  baseline: Baseline;
  person: PersonDetails;
  state: WorldState;
}

/** What a world is built from. */
export interface WorldOptions {
  /** The agent spec (validated here) or an {@link Agent}. */
  spec: unknown;
  situation: Situation;
  /** Defaults to the situation's seed. */
  seed?: number;
  /** Grow the world with other people's records until it holds at least this many. */
  size?: number;
}

/**
 * Builds the world behind a situation's tools: deterministic for (spec, situation, seed).
 *
 * @example
 * const world = createWorld({ spec, situation });
 * const answer = world.call("get_order", JSON.stringify({ order_id: world.person.ids.order_id }));
 */
export function createWorld(options: WorldOptions): World {
  const agent = Agent.from(options.spec);
  const situation = checkedSituation(agent, options.situation);
  const seed = options.seed ?? situation.seed;
  const model = WorldModel.of(agent);
  const built = buildWorld(model, situation, seed, options.size);
  return new World(
    agent,
    model,
    situation,
    seed,
    built.store,
    built.person,
    built.state,
    scheduleFaults(situation),
  );
}

/**
 * The simulated world: `call(tool, args)` answers as the tool would — reads find records, writes
 * change them and later reads see it — and says no with a message an agent can act on. Every
 * answer, refusal or fault is returned as the tool's message; nothing is thrown past it.
 */
export class World implements WorldAccess {
  readonly agent: Agent;
  readonly situation: Situation;
  readonly seed: number;
  /** What the person holds: name, email, phone, the identifiers they can quote, the subject in words. */
  readonly person: PersonDetails;
  readonly model: WorldModel;
  readonly store: Store;
  readonly #state: WorldState;
  readonly #faults: Fault[];
  readonly #calls = new Map<string, number>();
  #created = 0;
  #handedOff = false;

  constructor(
    agent: Agent,
    model: WorldModel,
    situation: Situation,
    seed: number,
    store: Store,
    person: PersonDetails,
    state: WorldState,
    faults: Fault[],
  ) {
    this.agent = agent;
    this.model = model;
    this.situation = situation;
    this.seed = seed;
    this.store = store;
    this.person = person;
    this.#state = state;
    this.#faults = faults;
  }

  /** Calls a tool with arguments given as an object or as the JSON string a model produced. */
  call(name: string, args: unknown): ToolAnswer {
    // Once a human has the conversation, nothing the agent calls runs, not even later calls of the
    // message that handed it off.
    if (this.#handedOff)
      return answer(
        refuse(
          "conversation_handed_off",
          "The conversation was handed to a human agent; this call was not run",
        ),
      );
    const tool = this.model.tools.get(name);
    if (!tool) {
      return answer(
        refuse(
          "unknown_tool",
          `No tool named "${name}"; available tools: ${[...this.model.tools.keys()].join(", ")}`,
        ),
      );
    }
    const parsed = parseArguments(args);
    // Arguments that are not even JSON never reach the tool, so they do not count towards its calls.
    if (!parsed.ok) return answer(parsed);
    const n = (this.#calls.get(name) ?? 0) + 1;
    this.#calls.set(name, n);
    const serverFault = this.#faults.length === 0 ? undefined : this.#dueFault(name, n, "server");
    if (serverFault) {
      serverFault.fired.push(n);
      return answer({
        ok: false,
        error: serverFaultAnswer(
          serverFault.kind,
          name,
          new Rng(this.seed, "fault", this.situation.id, String(n)),
        ),
      });
    }
    const problems = tool.check(parsed.args);
    if (problems.length > 0)
      return answer(
        refuse("invalid_arguments", `The arguments to ${name} were refused`, { problems }),
      );
    const placeholder = this.#placeholder(tool, parsed.args);
    if (placeholder) return answer(placeholder);
    const outcome = perform(this, tool, parsed.args);
    if (outcome.ok && this.#faults.length > 0) {
      const resultFault = this.#dueFault(name, n, "result");
      if (resultFault) {
        resultFault.fired.push(n);
        return {
          ok: true,
          content: spoil(resultFault.kind, outcome.json, this.seed, this.situation.id),
        };
      }
    }
    return answer(outcome);
  }

  /** Whether the agent has handed the conversation to a human. */
  get handedOff(): boolean {
    return this.#handedOff;
  }

  /** The faults scheduled on the situation's tool, with the calls they answered. */
  get faults(): Fault[] {
    return copyData(this.#faults);
  }

  /** The world as a row records it (`situation.world_state`), with current record counts. */
  /** The world's state as built (not a copy: read it, never change it); {@link World.describe} counts records too. */
  get state(): Readonly<WorldState> {
    return this.#state;
  }

  describe(): WorldState {
    const state = copyData(this.#state);
    for (const entity of this.model.entities.values())
      state.records[entity.collection] = this.store.count(entity.name);
    return state;
  }

  /** Everything needed to rebuild this world exactly as it is now. */
  snapshot(): WorldSnapshot {
    return {
      version: 1,
      spec_hash: this.agent.hash,
      situation_id: this.situation.id,
      seed: this.seed,
      collections: copyData(this.store.toJSON()),
      created: this.#created,
      calls: Object.fromEntries(this.#calls),
      faults: copyData(this.#faults),
      handed_off: this.#handedOff,
      state: copyData(this.#state),
      person: copyData(this.person),
    };
  }

  /**
   * A world rebuilt from a snapshot, with the seed it was built with. The spec and the situation
   * must be the ones it was taken with, and the snapshot must hold together: the spec's collections
   * and no others, each record with a unique string id, faults and call counts of the spec's tools.
   * Anything else is refused with a {@link InputError} naming each field.
   */
  static restore(spec: unknown, situation: Situation, snapshot: unknown): World {
    const agent = Agent.from(spec);
    const parsed = WorldSnapshotSchema.safeParse(snapshot);
    if (!parsed.success) throw new InputError("world snapshot", issuesOf(parsed.error, snapshot));
    // The snapshot as written, not as zod returns it: zod drops a record's field named `__proto__`.
    const s = bareJson(snapshot) as WorldSnapshot;
    // Of another spec, nothing else in the snapshot can be checked against this one.
    if (s.spec_hash !== agent.hash)
      throw new InputError("world snapshot", [
        {
          path: "spec_hash",
          message: `was taken from spec ${s.spec_hash.slice(0, 12)}, not ${agent.hash.slice(0, 12)}`,
        },
      ]);
    const checked = checkedSituation(agent, situation);
    const model = WorldModel.of(agent);
    const problems: InputIssue[] = [];
    if (s.situation_id !== checked.id)
      problems.push({
        path: "situation_id",
        message: `was taken from situation ${s.situation_id}, not ${checked.id}`,
      });
    problems.push(...recordProblems(model, s.collections));
    s.faults.forEach((fault, i) => {
      if (!model.tools.has(fault.tool))
        problems.push({
          path: `faults[${i}].tool`,
          message: `"${fault.tool}" is not a tool of this spec`,
        });
    });
    for (const tool of Object.keys(s.calls))
      if (!model.tools.has(tool))
        problems.push({ path: `calls.${tool}`, message: `"${tool}" is not a tool of this spec` });
    if (problems.length > 0) throw new InputError("world snapshot", listed(problems));
    const world = new World(
      agent,
      model,
      checked,
      s.seed,
      Store.from(model, s.collections),
      s.person,
      s.state,
      s.faults,
    );
    world.#created = s.created;
    for (const [tool, n] of Object.entries(s.calls)) world.#calls.set(tool, n);
    world.#handedOff = s.handed_off;
    return world;
  }

  /**
   * The records as they are now, to compare with and start over from: frozen and shared with this
   * world, which copies one only when a call changes it. From here on the store notes which
   * records calls touch.
   */
  baseline(): Baseline {
    const records = new Map<string, Map<string, WorldRecord>>();
    for (const entity of this.model.entities.values()) {
      const byId = new Map<string, WorldRecord>();
      for (const record of this.store.all(entity.name))
        byId.set(String(record[entity.idField]), frozenRecord(record));
      records.set(entity.name, byId);
    }
    this.store.track();
    return { records };
  }

  /**
   * This world's records with calls, faults and creations fresh: for replaying a read on records
   * nothing has changed yet, without copying them (a read never changes a record).
   */
  freshCalls(): World {
    return new World(
      this.agent,
      this.model,
      this.situation,
      this.seed,
      this.store,
      this.person,
      this.#state,
      scheduleFaults(this.situation),
    );
  }

  /** A world holding the records of a baseline of this one, its calls, faults and creations fresh. */
  startOver(baseline: Baseline): World {
    return World.fromStart(this.agent, this.situation, this.seed, {
      baseline,
      person: this.person,
      state: this.#state,
    });
  }

  /**
   * A world as another began: the records of its baseline shared, each copied only when a call
   * changes it (the baseline's are frozen), its person and state shared (neither is ever changed),
   * its calls, faults and creations fresh; the store notes what calls touch from the start.
   */
  static fromStart(agent: Agent, situation: Situation, seed: number, start: WorldStart): World {
    const model = WorldModel.of(agent);
    const store = new Store(model);
    for (const [entity, byId] of start.baseline.records)
      for (const record of byId.values()) store.add(entity, record);
    store.track();
    return new World(
      agent,
      model,
      situation,
      seed,
      store,
      start.person,
      start.state,
      scheduleFaults(situation),
    );
  }

  /** Part of {@link WorldAccess}: the agent handed off. */
  handOff(): void {
    this.#handedOff = true;
  }

  /** Part of {@link WorldAccess}: a new id, stable for the seed and the order of creations. */
  newId(entity: EntityModel): string {
    const rng = new Rng(this.seed, "world", this.situation.id, "created", String(this.#created++));
    return uniqueId(
      entity.idFormat,
      rng,
      (id) => this.store.has(entity.name, id) || entity.exampleIds.has(id),
      entity.name,
    );
  }

  /** The fault that answers call n of a tool: a server fault at its call (every call from it when persistent), or a result fault not yet fired. */
  #dueFault(tool: string, n: number, stage: "server" | "result"): Fault | undefined {
    for (const f of this.#faults) {
      if (f.tool !== tool) continue;
      if (
        stage === "server" &&
        SERVER_FAULTS.has(f.kind) &&
        (f.persistent ? n >= f.at_call : n === f.at_call)
      )
        return f;
      if (stage === "result" && RESULT_FAULTS.has(f.kind) && n >= f.at_call && f.fired.length === 0)
        return f;
    }
    return undefined;
  }

  /** A refusal for the first argument that echoes the schema instead of the person's details. */
  #placeholder(tool: ToolModel, args: Record<string, unknown>): Outcome | null {
    const properties = (tool.tool.parameters.properties ?? {}) as Record<
      string,
      { description?: string; enum?: unknown[] }
    >;
    for (const param in args) {
      const value = args[param];
      if (typeof value !== "string") continue;
      // A value the schema itself lists ("none" among refund targets) is a choice, never a placeholder.
      if (properties[param]?.enum?.includes(value)) continue;
      const entity = tool.idEntities.get(param);
      if (entity !== undefined && this.store.has(entity, value)) continue;
      // A description's example is a placeholder for an identifier ("such as #W0000000"); a city
      // given as an example ("e.g. Portland") may be where the person lives.
      const example = tool.examples.get(param);
      const reason = placeholderReason(
        param,
        value,
        properties[param]?.description,
        example !== undefined && (entity !== undefined || /\d/.test(example)) ? example : undefined,
      );
      if (reason) {
        return refuse(
          "placeholder_argument",
          `"${param}" looks like a placeholder, not a detail the person gave: ${reason}`,
          {
            argument: param,
            value,
            hint: `Use the ${param.replace(/_/g, " ")} the person gave or a tool returned; if you do not have it, ask the person.`,
          },
        );
      }
    }
    return null;
  }
}

/** Problems a snapshot error lists; past them, one more says how many were left out. */
const LISTED_PROBLEMS = 20;

function listed(problems: InputIssue[]): InputIssue[] {
  if (problems.length <= LISTED_PROBLEMS) return problems;
  return [
    ...problems.slice(0, LISTED_PROBLEMS),
    { path: "", message: `and ${problems.length - LISTED_PROBLEMS} more problems` },
  ];
}

/** What keeps a snapshot's records from making a store: unknown or missing collections, ids that are not unique strings. */
function recordProblems(
  model: WorldModel,
  collections: Record<string, WorldRecord[]>,
): InputIssue[] {
  const problems: InputIssue[] = [];
  const entities = new Map([...model.entities.values()].map((e) => [e.collection, e]));
  for (const name of Object.keys(collections)) {
    if (!entities.has(name))
      problems.push({
        path: `collections.${name}`,
        message: `is not a collection of this spec (it has ${[...entities.keys()].join(", ")})`,
      });
  }
  for (const [name, entity] of entities) {
    const records = collections[name];
    if (!records) {
      problems.push({
        path: `collections.${name}`,
        message: "expected the collection, an empty list when it holds no records",
      });
      continue;
    }
    const firstAt = new Map<string, number>();
    records.forEach((record, i) => {
      const id = record[entity.idField];
      const path = `collections.${name}[${i}].${entity.idField}`;
      if (typeof id !== "string" || id === "")
        problems.push({
          path,
          message: `expected the record's id as a non-empty string, got ${kindOf(id)}`,
        });
      else if (firstAt.has(id))
        problems.push({
          path,
          message: `"${id}" is already the id of collections.${name}[${firstAt.get(id)}]`,
        });
      else firstAt.set(id, i);
    });
  }
  return problems;
}

/** A value as an error names it: `none`, `an empty string`, `null`, `an array`, `an object`, or a number or boolean as written. */
function kindOf(value: unknown): string {
  if (value === undefined) return "none";
  if (value === "") return "an empty string";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : String(value);
}

function answer(outcome: Outcome | { ok: false; error: Record<string, unknown> }): ToolAnswer {
  if (outcome.ok) return { ok: true, content: outcome.json };
  return { ok: false, content: JSON.stringify(outcome.error), error: String(outcome.error.error) };
}

/**
 * Whether a call with these arguments counts towards its tool's calls (what a fault's `at_call`
 * and `fired` number): arguments that are not a JSON object never reach the tool.
 */
export function countsAsCall(args: unknown): boolean {
  return parseArguments(args).ok;
}

function parseArguments(
  args: unknown,
): { ok: true; args: Record<string, unknown> } | { ok: false; error: Record<string, unknown> } {
  let value = args;
  if (typeof args === "string") {
    if (args.trim() === "") value = {};
    else {
      try {
        value = JSON.parse(args);
      } catch (error) {
        return refuse("invalid_arguments", "The arguments are not valid JSON", {
          problems: [(error as Error).message],
        });
      }
    }
  }
  if (value === null || value === undefined) value = {};
  if (typeof value !== "object" || Array.isArray(value)) {
    return refuse("invalid_arguments", "The arguments must be a JSON object", {
      problems: [`got ${Array.isArray(value) ? "an array" : typeof value}`],
    });
  }
  // A client may send any depth; the check of a recursive schema would follow it to the stack's end.
  if (nestsDeeper(value))
    return refuse("invalid_arguments", "The arguments are nested too deeply", {
      problems: [`objects and arrays are nested more than ${MAX_DEPTH} levels deep`],
    });
  // Objects without a prototype: an argument named `constructor` or `__proto__` is the call's own.
  return { ok: true, args: bareJson(value as Record<string, unknown>) };
}

function checkedSituation(agent: Agent, situation: Situation): Situation {
  const parsed = SituationSchema.safeParse(situation);
  if (!parsed.success) throw new InputError("situation", issuesOf(parsed.error, situation));
  const issues = (["tool", "rule", "stance", "world", "condition", "history"] as const).flatMap(
    (axis) =>
      agent.axes[axis].some((v) => v.name === situation.axes[axis])
        ? []
        : [
            {
              path: `axes.${axis}`,
              message: `"${situation.axes[axis]}" is not a ${axis} of this spec`,
            },
          ],
  );
  if (issues.length > 0) throw new InputError("situation", issues);
  return parsed.data;
}
