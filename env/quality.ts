import type { ChatMessage, Quality, QualityFigure, Row } from "../spec/index.ts";
import type { Agent } from "./agent.ts";
import type { ValueCheck } from "./schema-checks.ts";
import { awaitsGoAhead, givesGoAhead } from "./text/phrases.ts";
import { needsConfirmation } from "./text/reading.ts";
import { DETAIL_PARAM } from "./text/slots.ts";
import { snake } from "./util/names.ts";
import { errorIn, parsedJson } from "./util/parsed.ts";
import { answerCheck } from "./world/answer-shape.ts";
import { spoiled } from "./world/faults.ts";
import { type ToolModel, WorldModel } from "./world/model.ts";
import { countsAsCall } from "./world/world.ts";

/** The bound each figure should keep on a healthy run; a figure past it is a warning. */
export const QUALITY_BOUNDS = {
  situation_tool_exercised: { at_least: 0.95 },
  loops: { at_most: 0.01 },
  empty_lookups: { at_most: 0.05 },
  sentence_arguments: { at_most: 0.005 },
  confirmed_writes: { at_least: 0.95 },
  distinct_openings: { at_least: 0.25 },
  answers_off_schema: { at_most: 0 },
  refused_calls: { at_most: 0.01 },
} as const;

/** Fewest cases a figure needs before its bound is checked: a share of three is not a finding. */
const MIN_SUPPORT = 20;
/**
 * Rows whose openings are told apart together: a long run holds more rows than any set of ways to
 * open allows, so its distinct share falls however varied each stretch of it is. Counted in
 * blocks, a run of 20,000 rows is held to what a run of 500 is.
 */
const OPENING_BLOCK = 500;

/** Answers to calls the world does not count towards a tool's calls. */
const UNCOUNTED = new Set(["unknown_tool", "conversation_handed_off"]);

/** Answers that refuse a call as malformed: its arguments, not the world, were wrong. */
const REFUSED = new Set(["invalid_arguments", "placeholder_argument"]);

/** Answers that say the call itself was wrong, so the tool never acted on anything. */
const NOT_REACHED = new Set([
  "invalid_arguments",
  "placeholder_argument",
  "unknown_tool",
  "not_found",
  "conversation_handed_off",
]);

/** Words that make a run of words a sentence rather than a name or a code. */
const FUNCTION_WORDS = new Set([
  "i",
  "i'm",
  "it's",
  "its",
  "my",
  "me",
  "is",
  "the",
  "can",
  "could",
  "you",
  "your",
  "please",
  "so",
  "and",
  "of",
  "to",
  "that",
  "this",
  "want",
  "need",
  "would",
  "have",
  "what",
]);

/** What one row adds to a {@link QualityTally}: counts and names, plain data a worker can send. */
export interface QualityFacts {
  /** The situation's tool. */
  tool: string;
  /** Tools the agent called after the opening. */
  called: string[];
  calls: number;
  /** Calls refused as malformed. */
  refused: number;
  sentences: number;
  writes: number;
  confirmed: number;
  lookups: number;
  empty: number;
  /** Answers of tools with an output schema, errors and planned faults left out, and those off it. */
  answers: number;
  offSchema: number;
  plain: boolean;
  exercised: boolean;
  reached: boolean;
  loops: boolean;
  /** The opening's frame, when the opening is the person's. */
  frame: string | null;
}

/**
 * What a run measures about its own data, row by row, in plan order: whether each row did its
 * situation and reached its goal, whether a role looped, whether lookups found the person, whether arguments hold
 * sentences, whether writes that need a yes got one, how varied the openings are, and which
 * planned tools were never called. A model-backed agent is measured the same way.
 */
export class QualityTally {
  readonly #model: WorldModel;
  readonly #confirm = new Map<string, boolean>();
  readonly #answerChecks = new Map<string, ValueCheck>();
  /** The tools that read: one read again after a spoiled answer is no loop. */
  readonly #reads = new Set<string>();
  #rows = 0;
  #plain = 0;
  #exercised = 0;
  #reached = 0;
  #loops = 0;
  #lookups = 0;
  #empty = 0;
  #calls = 0;
  #refused = 0;
  #sentences = 0;
  #writes = 0;
  #confirmed = 0;
  #answers = 0;
  #offSchema = 0;
  /** The openings' frames of the rows since the last whole block, and those of the blocks before. */
  readonly #frames = new Set<string>();
  #framesBefore = 0;
  readonly #planned = new Set<string>();
  readonly #called = new Set<string>();

  constructor(agent: Agent) {
    this.#model = WorldModel.of(agent);
    for (const tool of this.#model.tools.values()) {
      this.#confirm.set(tool.tool.name, needsConfirmation(agent, tool));
      const check = answerCheck(tool.tool);
      if (check) this.#answerChecks.set(tool.tool.name, check);
      if (tool.kind === "read_one" || tool.kind === "read_many") this.#reads.add(tool.tool.name);
    }
  }

  /** Counts one row. */
  add(row: Row): void {
    this.addFacts(this.facts(row));
  }

  /**
   * What one row adds to the figures, as plain data: a worker thread reads its rows, and the
   * thread writing the file adds the facts in plan order, so the figures do not depend on where a
   * row was played.
   */
  facts(row: Row): QualityFacts {
    const situationTool = row.situation.axes.tool;
    const start = 1 + row.episode.history_turns;
    const names = new Map<string, string>();
    const slipAt = new Set(row.episode.slips.map((s) => s.message));
    const called = new Set<string>();
    const f = {
      calls: 0,
      refused: 0,
      sentences: 0,
      writes: 0,
      confirmed: 0,
      lookups: 0,
      empty: 0,
      answers: 0,
      offSchema: 0,
    };
    const answered = new Map<string, number>();
    const argsOf = new Map<string, string>();
    const faulted = row.situation.faults.length > 0;
    const slipped = new Set<string>();
    let exercised = false;
    // Kinds of record a write of this row has changed: a read of one after it shows the write's doing.
    const changed = new Set<string>();
    const honest = row.situation.axes.world === "normal" && row.persona.misstated.length === 0;
    row.messages.forEach((message, i) => {
      if (message.role === "assistant") {
        for (const call of message.tool_calls ?? []) {
          names.set(call.id, call.function.name);
          argsOf.set(call.id, call.function.arguments);
          if (i < start) continue;
          called.add(call.function.name);
          const tool = this.#model.tools.get(call.function.name);
          if (!tool) continue;
          f.calls++;
          if (sentenceIn(tool, call.function.arguments)) f.sentences++;
          if (
            (tool.kind === "change" || tool.kind === "create") &&
            this.#confirm.get(tool.tool.name)
          ) {
            // A deliberate slip is left out, and so is the same call made again (its retry).
            const key = `${call.function.name} ${call.function.arguments}`;
            if (slipAt.has(i) || slipped.has(key)) {
              slipped.add(key);
              continue;
            }
            f.writes++;
            if (confirmedBefore(row.messages, i, start)) f.confirmed++;
          }
        }
        return;
      }
      if (message.role !== "tool") return;
      const name = names.get(message.tool_call_id) ?? message.name;
      const error = errorOf(message.content);
      // Numbered as the world numbers calls, so a fault's `fired` names this answer; a row
      // without faults has nothing to number.
      const counted =
        faulted &&
        !UNCOUNTED.has(error ?? "") &&
        countsAsCall(argsOf.get(message.tool_call_id) ?? "");
      const n = (answered.get(name) ?? 0) + (counted ? 1 : 0);
      answered.set(name, n);
      if (i < start) return;
      // A slip's call counts too: a slip is a choice (to hand off, to skip a yes), never a malformed call.
      if (REFUSED.has(error ?? "") && this.#model.tools.has(name)) f.refused++;
      const check = this.#answerChecks.get(name);
      const spoiled =
        counted && row.situation.faults.some((x) => x.tool === name && x.fired.includes(n));
      if (check && error === null && !spoiled) {
        f.answers++;
        if (check(parsedJson(message.content)).length > 0) f.offSchema++;
      }
      if (name === situationTool && !NOT_REACHED.has(error ?? "")) exercised = true;
      const tool = this.#model.tools.get(name);
      if (tool && error === null && (tool.kind === "change" || tool.kind === "create"))
        changed.add(tool.entity);
      if (!honest || !tool || (tool.kind !== "read_one" && tool.kind !== "read_many")) return;
      if (error !== null && error !== "not_found") return;
      // A list read back after a removal is empty by the write's doing, not the world's.
      if (changed.has(tool.entity)) return;
      f.lookups++;
      if (error === "not_found" || emptyList(message.content)) f.empty++;
    });
    const plain =
      row.situation.axes.world === "normal" &&
      row.situation.axes.condition === "ok" &&
      row.episode.slips.length === 0;
    const opening = row.messages[start];
    return {
      ...f,
      tool: situationTool,
      called: [...called],
      plain,
      exercised,
      reached: row.episode.outcome?.reached === true,
      loops: loops(row.messages, start, this.#reads),
      frame: opening?.role === "user" ? frameOf(opening.content) : null,
    };
  }

  /** Counts one row from its {@link QualityTally.facts}. */
  addFacts(f: QualityFacts): void {
    this.#rows++;
    this.#planned.add(f.tool);
    for (const name of f.called) this.#called.add(name);
    this.#calls += f.calls;
    this.#refused += f.refused;
    this.#sentences += f.sentences;
    this.#writes += f.writes;
    this.#confirmed += f.confirmed;
    this.#lookups += f.lookups;
    this.#empty += f.empty;
    this.#answers += f.answers;
    this.#offSchema += f.offSchema;
    if (f.plain) {
      this.#plain++;
      if (f.exercised) this.#exercised++;
      if (f.reached) this.#reached++;
    }
    if (f.loops) this.#loops++;
    if (f.frame !== null) this.#frames.add(f.frame);
    if (this.#rows % OPENING_BLOCK === 0) {
      this.#framesBefore += this.#frames.size;
      this.#frames.clear();
    }
  }

  /** The figures so far. */
  result(): Quality {
    return {
      rows: this.#rows,
      situation_tool_exercised: figure(this.#exercised, this.#plain),
      loops: figure(this.#loops, this.#rows),
      empty_lookups: figure(this.#empty, this.#lookups),
      sentence_arguments: figure(this.#sentences, this.#calls),
      confirmed_writes: figure(this.#confirmed, this.#writes),
      distinct_openings: figure(this.#framesBefore + this.#frames.size, this.#rows),
      goal_reached: figure(this.#reached, this.#plain),
      answers_off_schema: figure(this.#offSchema, this.#answers),
      refused_calls: figure(this.#refused, this.#calls),
      tools_never_called: [...this.#planned].filter((t) => !this.#called.has(t)).sort(),
    };
  }

  /** A warning for every figure past its bound (with enough support to mean something). */
  warnings(): string[] {
    return qualityWarnings(this.result());
  }
}

/** The warnings a quality report carries: each figure past its bound, and tools planned but never called. */
function qualityWarnings(quality: Quality): string[] {
  const out: string[] = [];
  for (const [name, bound] of Object.entries(QUALITY_BOUNDS) as [
    keyof typeof QUALITY_BOUNDS,
    { at_least?: number; at_most?: number },
  ][]) {
    const f = quality[name];
    if (f.of < MIN_SUPPORT || f.fraction === null) continue;
    const words = name.replace(/_/g, " ");
    if (bound.at_least !== undefined && f.fraction < bound.at_least)
      out.push(
        `quality: ${words} ${percent(f.fraction)} (${f.count} of ${f.of}), below ${percent(bound.at_least)}`,
      );
    if (bound.at_most !== undefined && f.fraction > bound.at_most)
      out.push(
        `quality: ${words} ${percent(f.fraction)} (${f.count} of ${f.of}), above ${percent(bound.at_most)}`,
      );
  }
  if (quality.tools_never_called.length > 0 && quality.rows >= MIN_SUPPORT)
    out.push(
      `quality: ${quality.tools_never_called.length} planned tools were never called: ${quality.tools_never_called.join(", ")}`,
    );
  return out;
}

function figure(count: number, of: number): QualityFigure {
  return { count, of, fraction: of === 0 ? null : count / of };
}

/** Answers that say a call never reached the tool's work (bad arguments, a handed-off conversation). */
const NEVER_RAN = new Set([
  "invalid_arguments",
  "placeholder_argument",
  "unknown_tool",
  "conversation_handed_off",
]);

/**
 * Whether a row touched its situation: the situation's tool ran (a `not_found` counts when the
 * world was shaped to miss the record) and the condition's fault, if any, fired. Coverage counts
 * a row's pairs as touched only then: what the run did, beside what it planned.
 */
export function touchedSituation(row: Row): boolean {
  const { tool, world, condition } = row.situation.axes;
  if (condition !== "ok" && !row.situation.faults.some((f) => f.fired.length > 0)) return false;
  const names = new Map<string, string>();
  for (const message of row.messages) {
    if (message.role === "assistant")
      for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
    if (message.role !== "tool") continue;
    if ((names.get(message.tool_call_id) ?? message.name) !== tool) continue;
    const error = errorOf(message.content);
    if (error === null || (!NEVER_RAN.has(error) && (error !== "not_found" || world !== "normal")))
      return true;
  }
  return false;
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

/** Whether a tool answer is an error the world marked as worth another try. */
function retryable(content: string): boolean {
  const body = parsedJson(content);
  return errorIn(body) !== null && (body as { retryable?: unknown }).retryable === true;
}

function errorOf(content: string): string | null {
  return errorIn(parsedJson(content));
}

/** Whether a read answer lists nothing: its first list is empty. */
function emptyList(content: string): boolean {
  const body = parsedJson(content);
  if (Array.isArray(body)) return body.length === 0;
  if (body === null || typeof body !== "object") return false;
  const list = Object.values(body).find(Array.isArray) as unknown[] | undefined;
  return list !== undefined && list.length === 0 && Object.keys(body).length <= 3;
}

/** Whether a call puts a sentence into an argument that should hold a detail (an id, a name, a code). */
function sentenceIn(tool: ToolModel, args: string): boolean {
  const parsed = parsedJson(args);
  if (parsed === null || typeof parsed !== "object") return false;
  const properties = (tool.tool.parameters.properties ?? {}) as Record<
    string,
    { pattern?: string; format?: string; enum?: unknown[] }
  >;
  for (const [param, value] of Object.entries(parsed as Record<string, unknown>)) {
    const schema = properties[param];
    const detail =
      tool.idEntities.has(param) ||
      DETAIL_PARAM.test(snake(param)) ||
      schema?.pattern !== undefined ||
      schema?.format !== undefined;
    if (!detail) continue;
    for (const v of Array.isArray(value) ? value : [value])
      if (typeof v === "string" && isSentence(v)) return true;
  }
  return false;
}

/** A run of words that reads as a sentence: six or more words, or three with a function word. */
export function isSentence(value: string): boolean {
  const words = value.toLowerCase().trim().split(/\s+/).filter(Boolean);
  if (words.length >= 6) return true;
  return words.length >= 3 && words.some((w) => FUNCTION_WORDS.has(w.replace(/[^a-z']/g, "")));
}

/** Whether the person was asked for a go-ahead, and said yes, before the call at message `at`. */
function confirmedBefore(messages: readonly ChatMessage[], at: number, start: number): boolean {
  let answer = -1;
  for (let i = at - 1; i >= start; i--) {
    if (messages[i]?.role === "user") {
      answer = i;
      break;
    }
  }
  if (answer < 0) return false;
  const reply = messages[answer] as { content: string };
  if (!givesGoAhead(reply.content)) return false;
  for (let i = answer - 1; i >= start; i--) {
    const m = messages[i];
    if (m?.role === "user") return false;
    if (m?.role === "assistant" && typeof m.content === "string" && awaitsGoAhead(m.content))
      return true;
  }
  return false;
}

/**
 * Whether a role repeats itself: the same words twice from the person, or the same message or call
 * three times from the agent, but for a retry the world asked for and a read again of an answer
 * that came back spoiled (cut off, or partial).
 */
function loops(
  messages: readonly ChatMessage[],
  start: number,
  reads: ReadonlySet<string>,
): boolean {
  const said = new Map<string, number>();
  for (let i = start; i < messages.length; i++) {
    const m = messages[i];
    if (!m || (m.role !== "user" && m.role !== "assistant")) continue;
    const calls = m.role === "assistant" ? (m.tool_calls ?? []) : [];
    // A call the world said to try again (a timeout, a server error) is retried, not gone round;
    // so is a read whose answer could not be read whole.
    const answers = messages.slice(i + 1, i + 1 + calls.length);
    if (
      calls.length > 0 &&
      answers.some(
        (a) =>
          a.role === "tool" &&
          (retryable(a.content) || (reads.has(a.name ?? "") && spoiled(a.content))),
      )
    )
      continue;
    const text =
      calls.length > 0
        ? callsKey(calls)
        : (m.content ?? "").toLowerCase().replace(/\s+/g, " ").trim();
    if (text === "") continue;
    const key = `${m.role} ${text}`;
    const times = (said.get(key) ?? 0) + 1;
    said.set(key, times);
    if (times >= (m.role === "user" ? 2 : 3)) return true;
  }
  return false;
}

/** A message's calls as one string: each name and arguments quoted as JSON, so no two lists read alike. */
function callsKey(calls: readonly { function: { name: string; arguments: string } }[]): string {
  let key = "call";
  for (const call of calls)
    key += ` ${JSON.stringify(call.function.name)}${JSON.stringify(call.function.arguments)}`;
  return key;
}

/** The first five words of an opening, values masked, as a frame the writer used. */
function frameOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/\S*\d\S*/g, "#")
    .split(/[^a-z#']+/)
    .filter(Boolean)
    .slice(0, 5)
    .join(" ");
}
