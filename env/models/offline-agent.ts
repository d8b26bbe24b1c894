import type { AssistantMessage, ChatMessage, SlipKind } from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import { AGENT_WRITTEN } from "../people/goal.ts";
import { Rng } from "../rng.ts";
import { type EntityModel, snake, type ToolModel, WorldModel } from "../world/model.ts";
import { argumentsIn, bareAnswer, intentOf, needsConfirmation } from "./reading.ts";
import type { AgentPolicy, AgentSession, AgentTurn } from "./roles.ts";

/** Share of episodes in which the offline agent makes one of its named slips. */
export const DEFAULT_SLIP_RATE = 0.25;

const ANYTHING_ELSE = "Is there anything else I can help you with?";
const RETRYABLE = new Set(["timeout", "server_error", "rate_limited"]);

/**
 * The offline agent: a seeded scripted policy. It asks for missing identifiers, calls the right
 * tool, confirms before a write when a rule says so and reports tool errors truthfully — and in a
 * set share of episodes slips in one named, realistic way, recorded on the turn it happens.
 */
export class OfflineAgent implements AgentPolicy {
  readonly name = "offline";
  readonly #slipRate: number;

  constructor(options: { slipRate?: number } = {}) {
    const rate = options.slipRate ?? DEFAULT_SLIP_RATE;
    if (!(rate >= 0 && rate <= 1))
      throw new RangeError(`slipRate: expected a share between 0 and 1, got ${rate}`);
    this.#slipRate = rate;
  }

  start(agent: Agent, seed: number): AgentSession {
    return new ScriptedSession(agent, seed, this.#slipRate);
  }
}

type Pending =
  | { kind: "ask"; params: string[] }
  | { kind: "confirm" }
  | { kind: "choose"; param: string; ids: string[] }
  | { kind: "call"; tool: ToolModel; listingFor?: string }
  | { kind: "reported" }
  | null;

class ScriptedSession implements AgentSession {
  readonly #agent: Agent;
  readonly #model: WorldModel;
  readonly #rng: Rng;
  readonly #slipRate: number;
  #slip: SlipKind | null | undefined;
  #intent: ToolModel | null = null;
  #args: Record<string, unknown> = {};
  #pending: Pending = null;
  #confirmed = false;
  #attempts = 0;
  #calls = 0;
  #turns = 0;
  #unknownIds = new Set<string>();
  /** Values the world already said it could not find, by argument. */
  #notFound = new Map<string, Set<string>>();

  constructor(agent: Agent, seed: number, slipRate: number) {
    this.#agent = agent;
    this.#model = WorldModel.of(agent);
    this.#rng = new Rng(seed, "offline-agent");
    this.#slipRate = slipRate;
  }

  async respond(conversation: readonly ChatMessage[]): Promise<AgentTurn> {
    this.#turns++;
    const last = conversation.at(-1);
    if (last?.role === "tool") return this.#afterTool(last.content, conversation);
    if (last?.role === "user") this.#absorb(last.content, conversation);
    return this.#next(conversation);
  }

  /** Takes in what the person just said: the request, identifiers, answers, a yes or a no. */
  #absorb(text: string, conversation: readonly ChatMessage[]): void {
    if (!this.#intent) {
      const said = conversation
        .filter((m) => m.role === "user")
        .map((m) => m.content)
        .join(" ");
      this.#intent = intentOf(this.#model, said);
      if (this.#intent) Object.assign(this.#args, argumentsIn(this.#model, this.#intent, said));
      return;
    }
    const tool = this.#intent;
    const pending = this.#pending;
    const given = argumentsIn(this.#model, tool, text);
    if (pending?.kind === "reported" && Object.entries(given).some(([p, v]) => this.#args[p] !== v))
      this.#pending = null;
    Object.assign(this.#args, given);
    if (pending?.kind === "ask") {
      this.#fillAskedIds(tool, pending.params, text);
      const free = pending.params.filter((p) => !tool.idEntities.has(p) && !(p in given));
      const value =
        free.length === 1 ? this.#coerce(tool, free[0] as string, bareAnswer(text)) : undefined;
      if (value !== undefined) this.#args[free[0] as string] = value;
      if (/\b(don'?t|do not) have\b|not sure which|\beither\b/i.test(text)) {
        for (const p of pending.params)
          if (tool.idEntities.has(p) && !(p in given)) this.#unknownIds.add(p);
      }
    }
    if (pending?.kind === "confirm") {
      this.#confirmed =
        /\b(yes|yeah|yep|sure|ok(ay)?|go ahead|please do|correct|do it|obviously)\b/i.test(text) &&
        !/\b(no|not|isn'?t|wrong)\b/i.test(text);
    }
    if (pending?.kind === "choose") {
      const picked =
        pending.ids.find((id) => text.includes(id)) ??
        (/\bsecond\b/i.test(text) ? pending.ids[1] : undefined) ??
        (/first|either|any/i.test(text) ? pending.ids[0] : undefined);
      if (picked) this.#args[pending.param] = picked;
    }
  }

  /** An answer to "what is your X?" with no direction words: the identifiers given, in order, fill the asked arguments still missing. */
  #fillAskedIds(tool: ToolModel, asked: string[], text: string): void {
    const used = new Set(Object.values(this.#args).map(String));
    for (const param of asked) {
      if (this.#args[param] !== undefined) continue;
      const entity = this.#model.entities.get(tool.idEntities.get(param) ?? "");
      if (!entity) continue;
      const id = entity.idFormat.find(text).find((v) => !used.has(v));
      if (id) {
        this.#args[param] = entity.idFormat.numeric ? Number(id) : id;
        used.add(id);
      }
    }
  }

  /** The next move: gather what is missing, confirm, then call; or wrap up once reported. */
  #next(conversation: readonly ChatMessage[]): AgentTurn {
    const tool = this.#intent;
    if (this.#pending?.kind === "reported") {
      const last = conversation.at(-1);
      if (last?.role === "user" && /sure|double-check|check again|went through/i.test(last.content))
        return this.#recheck();
      return this.#say(ANYTHING_ELSE);
    }
    if (!tool)
      return this.#say("I'm sorry, I didn't quite get that. What would you like me to do?");
    const slip = this.#plannedSlip(tool);
    if (slip === "early_handoff" && this.#turns === 1) {
      this.#slip = null;
      return this.#handOff(tool);
    }

    const missing = this.#missing(tool);
    const missingIds = missing.filter((p) => tool.idEntities.has(p));
    if (missingIds.length > 0 && slip === "invented_identifier") {
      this.#slip = null;
      for (const p of missingIds) this.#args[p] = this.#invent(tool, p);
      return this.#call(tool, {
        kind: "invented_identifier",
        detail: `made up ${missingIds.map((p) => `${p}=${this.#args[p]}`).join(", ")}`,
      });
    }
    const again = Object.entries(this.#args).find(([p, v]) =>
      this.#notFound.get(p)?.has(String(v)),
    );
    if (again) {
      this.#pending = { kind: "reported" };
      return this.#say(
        `I'm sorry, I still can't find anything with ${words(again[0])} ${String(again[1])}, so I can't go further with it. ${ANYTHING_ELSE}`,
      );
    }
    const listing = missingIds.find((p) => this.#unknownIds.has(p));
    if (listing) {
      const lister = this.#lister(tool, listing);
      if (lister) {
        const needed = this.#missing(lister);
        if (needed.length > 0) return this.#ask(lister, needed);
        return this.#call(lister, undefined, listing);
      }
    }
    if (missing.length > 0) return this.#ask(tool, missing);

    if (needsConfirmation(this.#agent, tool) && !this.#confirmed) {
      if (slip === "skipped_confirmation") {
        this.#slip = null;
        return this.#call(tool, {
          kind: "skipped_confirmation",
          detail: `called ${tool.tool.name} without the person's yes`,
        });
      }
      this.#pending = { kind: "confirm" };
      return this.#say(`To confirm, I'll ${this.#describe(tool)}. Shall I go ahead?`);
    }
    if (
      slip === "claimed_unperformed_action" &&
      tool.kind !== "read_one" &&
      tool.kind !== "read_many"
    ) {
      this.#slip = null;
      this.#pending = { kind: "reported" };
      return {
        message: {
          role: "assistant",
          content: `Done! I've taken care of it: ${this.#describe(tool)}. ${ANYTHING_ELSE}`,
        },
        slip: {
          kind: "claimed_unperformed_action",
          detail: `said ${tool.tool.name} was done without calling it`,
        },
      };
    }
    return this.#call(tool);
  }

  /** Reads a tool answer and says what happened, retrying what is worth retrying. */
  #afterTool(content: string, conversation: readonly ChatMessage[]): AgentTurn {
    const pending = this.#pending;
    const tool = pending?.kind === "call" ? pending.tool : (this.#intent as ToolModel);
    let body: Record<string, unknown> | null = null;
    try {
      body = JSON.parse(content) as Record<string, unknown>;
    } catch {
      body = null;
    }
    const error = body && typeof body.error === "string" ? body.error : null;
    const unreadable = body === null || (Array.isArray(body.warnings) && body.warnings.length > 0);
    const reads = tool.kind === "read_one" || tool.kind === "read_many";
    // A read is safe to ask again; a write whose answer came back spoiled has happened, so it is not repeated.
    if ((error && RETRYABLE.has(error)) || (unreadable && reads)) {
      if (this.#attempts < 2)
        return this.#call(
          tool,
          undefined,
          pending?.kind === "call" ? pending.listingFor : undefined,
        );
    }
    if (pending?.kind === "call" && pending.listingFor && body && !error)
      return this.#choose(pending.listingFor, body, conversation);
    if (error && this.#slip === "claimed_success_after_error") {
      this.#slip = null;
      this.#pending = { kind: "reported" };
      return {
        message: { role: "assistant", content: `All done: I've completed it. ${ANYTHING_ELSE}` },
        slip: {
          kind: "claimed_success_after_error",
          detail: `reported success after ${tool.tool.name} answered ${error}`,
        },
      };
    }
    if (error === "not_found") {
      const looked = Object.keys((body?.looked_up as Record<string, unknown>) ?? {})[0];
      if (looked) {
        const value = this.#args[looked];
        delete this.#args[looked];
        this.#notFound.set(looked, (this.#notFound.get(looked) ?? new Set()).add(String(value)));
        this.#pending = { kind: "ask", params: [looked] };
        return this.#say(
          `I couldn't find anything with ${words(looked)} ${String(value)}. Could you double-check the ${words(looked)}?`,
        );
      }
    }
    this.#pending = { kind: "reported" };
    if (error === "permission_denied")
      return this.#say(`I'm sorry, I don't have permission to do that from here. ${ANYTHING_ELSE}`);
    if (error)
      return this.#say(
        `I'm sorry, I couldn't do that: ${String(body?.message ?? error)}. ${ANYTHING_ELSE}`,
      );
    if (body === null)
      return this.#say(
        `I'm sorry, the system sent back an answer I can't read, so I can't tell you yet whether that ${reads ? "lookup" : "request"} worked. Please check again shortly. ${ANYTHING_ELSE}`,
      );
    if (unreadable)
      return this.#say(
        `${reads ? "Here's what I could get" : "Done"}, though part of the answer didn't load: ${summary(body)}. ${ANYTHING_ELSE}`,
      );
    const intro =
      tool.kind === "read_one" || tool.kind === "read_many" ? "Here's what I found" : "Done";
    return this.#say(`${intro}: ${summary(body)}. ${ANYTHING_ELSE}`);
  }

  /** After listing the person's records to find the one they mean: use it, or ask which. */
  /** After listing the person's records to find the one they mean: the best match on their own words, or ask which. */
  #choose(
    param: string,
    body: Record<string, unknown>,
    conversation: readonly ChatMessage[],
  ): AgentTurn {
    const records = (Object.values(body).find(Array.isArray) ?? []) as Record<string, unknown>[];
    const tool = this.#intent as ToolModel;
    const entity = this.#model.entities.get(tool.idEntities.get(param) as string) as EntityModel;
    const said = new Set(
      conversation
        .filter((m) => m.role === "user")
        .flatMap((m) => m.content.toLowerCase().split(/[^a-z0-9]+/))
        .filter((w) => w.length > 3 || /^\d{2,}$/.test(w)),
    );
    const scored = records.map((r) => ({
      r,
      score: new Set(
        JSON.stringify(r)
          .toLowerCase()
          .split(/[^a-z0-9]+/)
          .filter((w) => said.has(w)),
      ).size,
    }));
    const best = Math.max(0, ...scored.map((s) => s.score));
    const candidates = scored.filter((s) => best === 0 || s.score === best).map((s) => s.r);
    this.#unknownIds.delete(param);
    if (candidates.length === 1) {
      this.#args[param] = (candidates[0] as Record<string, unknown>)[entity.idField];
      return this.#next(conversation);
    }
    if (candidates.length === 0) {
      this.#pending = { kind: "reported" };
      return this.#say(
        `I couldn't find any ${entity.collection} on your account. ${ANYTHING_ELSE}`,
      );
    }
    const ids = candidates.map((r) => String(r[entity.idField]));
    this.#pending = { kind: "choose", param, ids };
    const listed = candidates.map(
      (r) => `${String(r[entity.idField])} (${labelOf(r, entity.idField)})`,
    );
    return this.#say(
      `I can see ${candidates.length} ${entity.collection} that could be it: ${listed.join("; ")}. Which one do you mean?`,
    );
  }

  #recheck(): AgentTurn {
    const tool = this.#intent as ToolModel;
    const reader = [...this.#model.tools.values()].find(
      (t) =>
        t.kind === "read_one" &&
        t.entity === tool.entity &&
        t.idParam &&
        this.#args[t.idParam] !== undefined,
    );
    if (reader && reader !== tool) {
      this.#intent = reader;
      return this.#call(reader);
    }
    return this.#say(`Yes, the system confirmed it at the time. ${ANYTHING_ELSE}`);
  }

  #call(tool: ToolModel, slip?: AgentTurn["slip"], listingFor?: string): AgentTurn {
    const sameCall = this.#pending?.kind === "call" && this.#pending.tool === tool;
    this.#attempts = sameCall ? this.#attempts + 1 : 1;
    this.#pending = listingFor ? { kind: "call", tool, listingFor } : { kind: "call", tool };
    const args: Record<string, unknown> = {};
    const properties = Object.keys(tool.tool.parameters.properties ?? {});
    for (const param of properties)
      if (this.#args[param] !== undefined) args[param] = this.#args[param];
    for (const param of tool.tool.parameters.required ?? []) {
      if (args[param] === undefined && AGENT_WRITTEN.test(snake(param)))
        args[param] = `Customer asked to ${this.#describe(this.#intent ?? tool)}.`;
    }
    const id = `call_${new Rng(this.#rng.key, "call", String(++this.#calls)).uint32().toString(16).padStart(8, "0")}`;
    const message: AssistantMessage = {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id,
          type: "function",
          function: { name: tool.tool.name, arguments: JSON.stringify(args) },
        },
      ],
    };
    return slip ? { message, slip } : { message };
  }

  /** Asks for identifiers and emails first (several at once), then for each other detail on its own, so every answer fills one field. */
  #ask(tool: ToolModel, params: string[]): AgentTurn {
    const keys = params.filter((p) => tool.idEntities.has(p) || /email/i.test(p));
    const asked = keys.length > 0 ? keys : params.slice(0, 1);
    this.#pending = { kind: "ask", params: asked };
    const named = asked.map((p) =>
      tool.idEntities.has(p)
        ? `your ${words(p)}`
        : /email/i.test(p)
          ? "the email address on your account"
          : `the ${words(p)}`,
    );
    return this.#say(`Could you give me ${named.join(" and ")}?`);
  }

  #handOff(tool: ToolModel): AgentTurn {
    const handoff = [...this.#model.tools.values()].find((t) => t.kind === "handoff");
    const slip = {
      kind: "early_handoff" as const,
      detail: `handed off before trying ${tool.tool.name}`,
    };
    if (handoff) {
      this.#intent = handoff;
      return this.#call(handoff, slip);
    }
    this.#pending = { kind: "reported" };
    return {
      message: {
        role: "assistant",
        content: "Let me pass you to a colleague who can help with this.",
      },
      slip,
    };
  }

  /** Required arguments not yet known (those the agent writes itself excepted). */
  #missing(tool: ToolModel): string[] {
    return (tool.tool.parameters.required ?? []).filter(
      (p) => this.#args[p] === undefined && !AGENT_WRITTEN.test(snake(p)),
    );
  }

  /** A read-many tool that lists records of the entity an unknown id names, to find it from. */
  #lister(tool: ToolModel, param: string): ToolModel | undefined {
    const entity = tool.idEntities.get(param);
    return [...this.#model.tools.values()].find(
      (t) => t.kind === "read_many" && t.entity === entity,
    );
  }

  /** Decided once the request is known: whether this episode slips, and how. */
  #plannedSlip(tool: ToolModel): SlipKind | null {
    if (this.#slip !== undefined) return this.#slip;
    const rng = this.#rng.fork("slip");
    if (!rng.chance(this.#slipRate)) {
      this.#slip = null;
      return null;
    }
    const writes = tool.kind === "change" || tool.kind === "create";
    const options: SlipKind[] = ["claimed_success_after_error"];
    if (tool.kind !== "handoff") options.push("early_handoff");
    if (tool.idEntities.size > 0) options.push("invented_identifier");
    if (writes) options.push("claimed_unperformed_action");
    if (writes && needsConfirmation(this.#agent, tool)) options.push("skipped_confirmation");
    this.#slip = rng.pick(options);
    return this.#slip;
  }

  #invent(tool: ToolModel, param: string): string | number {
    const entity = this.#model.entities.get(tool.idEntities.get(param) as string) as EntityModel;
    const id = entity.idFormat.make(this.#rng.fork("invent", param));
    return entity.idFormat.numeric ? Number(id) : id;
  }

  /** A free-text answer as the argument's type; undefined when it is not one (a number that is not a number). */
  #coerce(tool: ToolModel, param: string, text: string): unknown {
    const schema = ((tool.tool.parameters.properties ?? {}) as Record<string, { type?: string }>)[
      param
    ];
    switch (schema?.type) {
      case "number":
      case "integer": {
        const number = /^[$£€]?\s*(\d+(?:\.\d+)?)\s*[A-Z]{0,3}$/.exec(text.trim());
        if (!number) return undefined;
        const n = Number(number[1]);
        return schema.type === "integer" ? Math.round(n) : n;
      }
      case "boolean":
        return /^(yes|yeah|yep|true|sure|please do)\b/i.test(text)
          ? true
          : /^(no|nope|false|not)\b/i.test(text)
            ? false
            : undefined;
      case "object":
      case "array":
        try {
          return JSON.parse(text) as unknown;
        } catch {
          return undefined;
        }
      default:
        return text;
    }
  }

  #describe(tool: ToolModel): string {
    const verb = snake(tool.tool.name).replace(/_/g, " ");
    const args = Object.entries(this.#args)
      .filter(([p]) => p in (tool.tool.parameters.properties ?? {}))
      .map(([p, v]) => `${words(p)} ${typeof v === "number" ? v.toFixed(2) : String(v)}`);
    return args.length > 0 ? `${verb} with ${args.join(", ")}` : verb;
  }

  #say(content: string): AgentTurn {
    return { message: { role: "assistant", content } };
  }
}

/** A record in a few words: its first two text fields. */
function labelOf(record: Record<string, unknown>, idField: string): string {
  return Object.entries(record)
    .filter(([k, v]) => k !== idField && typeof v === "string" && !/(_id|Id)$/.test(k))
    .slice(0, 2)
    .map(([, v]) => v)
    .join(", ");
}

function words(param: string): string {
  return snake(param).replace(/_/g, " ").replace(/\bid$/, "ID");
}

/** The first fields of an answer, or the count and ids of a list. */
function summary(body: Record<string, unknown>): string {
  const list = Object.entries(body).find(([, v]) => Array.isArray(v));
  if (list && typeof body.count === "number") {
    const items = list[1] as Record<string, unknown>[];
    const ids = items.slice(0, 5).map((i) => String(Object.values(i)[0]));
    return `${items.length} ${list[0]}${ids.length > 0 ? ` (${ids.join(", ")})` : ""}`;
  }
  return Object.entries(body)
    .filter(([k, v]) => k !== "warnings" && (typeof v === "string" || typeof v === "number"))
    .slice(0, 5)
    .map(
      ([k, v]) =>
        `${k.replace(/_/g, " ")} ${typeof v === "number" && !Number.isInteger(v) ? v.toFixed(2) : v}`,
    )
    .join(", ");
}
