import type { Agent } from "../agent.ts";
import { inflections, phrasePattern, toolWords } from "../policy/words.ts";
import { keyed } from "../util/lookup.ts";
import { snake } from "../util/names.ts";
import { propertiesOf, type ToolModel, type WorldModel } from "../world/model.ts";
import { QUOTED, readValue } from "./slots.ts";
import { swapTypos } from "./typos.ts";

/** Verbs that say little about the action (every read "gets"); a specific verb outweighs them. */
const GENERIC_VERBS = new Set([
  "get",
  "check",
  "see",
  "show",
  "list",
  "view",
  "look up",
  "status",
  "fetch",
  "read",
  "find",
  "search",
  "look",
]);
/** A person asking for a person. */
const WANTS_HUMAN =
  /\b(human|real person|someone else|a manager|supervisor|representative|an? agent|(talk|speak) (to|with) (a|an|someone|somebody|the (\w+ )?(team|desk|department|office|manager|supervisor|specialist|agent|colleague))|(put|pass|transfer|connect) me (on |through )?to (someone|somebody|(a|an|the) (human|person|manager|supervisor|colleague|specialist|agent|representative|\w+ (team|desk|department))))\b/;
/** The same words said against it: "don't pass me on to someone else". */
const REFUSES_HUMAN =
  /\b(don'?t|do not|never|no need to|not)\b[^.!?]{0,40}\b(human|someone else|a manager|supervisor|representative|an? agent|pass|transfer|hand)/;

interface IntentWords {
  tool: ToolModel;
  name: RegExp;
  actions: RegExp;
  /** Which of the spec's distinct action patterns this is: tools of one verb family share one. */
  family: number;
  /** Words of the name besides its verb ("account", "summary"). */
  rest: RegExp[];
  wrapped: RegExp | null;
  plural: RegExp | null;
  /** The tool's own verb in all its forms. */
  own: ReadonlySet<string>;
  /**
   * The parameters whose values name the record the tool acts on: its id, or for a list read, the
   * id of the record it belongs to (a reservation's invoices).
   */
  named: readonly string[];
}

const cache = new WeakMap<WorldModel, IntentWords[]>();

function wordsOf(model: WorldModel): IntentWords[] {
  let words = cache.get(model);
  if (words) return words;
  const families = new Map<string, number>();
  words = [...model.tools.values()]
    .filter((t) => t.kind !== "utility")
    .map((tool) => {
      const w = toolWords(tool.tool);
      const nouns = w.nouns.filter((n) => n.length > 2);
      const actions = new RegExp((phrasePattern(w.actions) as RegExp).source, "gi");
      if (!families.has(actions.source)) families.set(actions.source, families.size);
      return {
        tool,
        name: phrasePattern(w.names) as RegExp,
        actions,
        family: families.get(actions.source) as number,
        rest: nameParts(snake(tool.tool.name).split("_"))
          .filter((x) => x.length > 2 && x !== w.verb && !/^(the|and|for|by|with|from)$/.test(x))
          .map((x) => phrasePattern([x, `${x}s`]) as RegExp),
        wrapped: phrasePattern(w.wrapped),
        plural:
          tool.kind === "read_many" ? phrasePattern(nouns.filter((n) => n.endsWith("s"))) : null,
        own: new Set(inflections(tool.verb)),
        named: tool.idParam
          ? [tool.idParam]
          : tool.kind === "read_many"
            ? tool.refs.filter((r) => r.by === "id" && !r.many).map((r) => r.param)
            : [],
      };
    });
  cache.set(model, words);
  return words;
}

/** Words of a name with a particle kept on its verb: move_in → "move in", not "move" (as move_out). */
function nameParts(words: readonly string[]): string[] {
  const parts: string[] = [];
  for (const word of words) {
    if (/^(in|out|up|on|off)$/.test(word) && parts.length > 0)
      parts[parts.length - 1] = `${parts.at(-1)} ${word}`;
    else parts.push(word);
  }
  return parts;
}

/**
 * The tool a request is for, read as an agent would: the one whose name, action (in any of its
 * forms and synonyms: "call off", "cancellation") and nouns the person's words speak of most. A
 * specific action outweighs a generic one ("check"), and quoted words are the person citing
 * something, not asking for it. A request for a person goes to the hand-off tool.
 */
export function intentOf(model: WorldModel, text: string): ToolModel | null {
  return intentScores(model, text)[0]?.tool ?? null;
}

/** How strongly a message asks for each tool, strongest first (those it does not ask for left out). */
export function intentScores(model: WorldModel, text: string): readonly IntentScore[] {
  let read = scored.get(model);
  if (!read) {
    read = new Map();
    scored.set(model, read);
  }
  const known = read.get(text);
  if (known) return known;
  const scores = scoreIntents(model, text);
  if (read.size >= REMEMBERED) read.clear();
  read.set(text, scores);
  return scores;
}

/** A tool a message asks for and how strongly. */
export interface IntentScore {
  tool: ToolModel;
  score: number;
  /** The words right after the message's action name it ("check my invoice"). */
  object: boolean;
}

/** A possessive, which makes what follows it a thing someone holds ("my quote"). */
const POSSESSIVE_BEFORE = /\b(my|your|our|their|his|her|its)\s+$/;

/** Messages remembered per spec: the agent reads a message more than once in a turn. */
const REMEMBERED = 2_048;
const scored = new WeakMap<WorldModel, Map<string, readonly IntentScore[]>>();

function scoreIntents(model: WorldModel, text: string): IntentScore[] {
  const words = untypo(text.toLowerCase().replace(QUOTED, " "), model);
  const scores: { tool: ToolModel; score: number; object: boolean }[] = [];
  // Tools of one verb family share their action pattern: its first action is found once.
  // With it, the words right after it: what the action is about ("check my bill").
  const actions: ({ found: RegExpExecArray | null; after: string } | undefined)[] = [];
  for (const w of wordsOf(model)) {
    let score = 0;
    let family = actions[w.family];
    if (family === undefined) {
      const first = firstAction(words, w.actions) ?? null;
      const after = first
        ? words
            .slice(first.index + first[0].length)
            .split(/\s+/)
            .slice(0, 4)
            .join(" ")
        : "";
      family = { found: first, after };
      actions[w.family] = family;
    }
    const { found, after } = family;
    // Each word test is made once: a tool's score and whether it is asked for read the same ones.
    const covered = countMatches(w.rest, words);
    const complete = w.rest.length > 0 && covered === w.rest.length;
    const action = found?.[0];
    let named = false;
    let object = false;
    let wrapped: boolean | undefined;
    if (w.tool.kind === "handoff") {
      // Asked for "a pharmacist", the hand-off to pharmacists beats the one to the general desk.
      score = wantsHuman(words) ? 4 + covered : 0;
    } else {
      named = w.name.test(words);
      if (named) score += 5;
      // "check" says little; "cancel" or "refund" says what the person wants done.
      if (action) score += GENERIC_VERBS.has(action) ? 1 : 3;
      // The tool's own verb outweighs a synonym another tool shares ("submit" a claim vs create one).
      if (action && w.own.has(action)) score++;
      // A request that names the record a tool acts on (its id) is for that tool.
      if (w.named.some((param) => readValue(model, w.tool, param, text, false))) score++;
      // "check my bill": the thing right after the action is what it is about.
      if (found) {
        object = w.rest.some((part) => part.test(after));
        if (object) score++;
      } else {
        wrapped = w.wrapped?.test(words) === true;
        if (wrapped) score += 2;
      }
      score += covered;
      // Every word of the name said ("my bill" for get_bill) beats half of a longer one's.
      if (complete) score++;
      if (w.plural?.test(words)) score++;
    }
    // A request says what to do: a record named without an action ("a question about my order") is
    // not one yet, and a generic verb ("check") counts only with every word of the tool's name.
    const specific = action !== undefined && !GENERIC_VERBS.has(action) && !/ing$/.test(action);
    const acted =
      w.tool.kind === "handoff" ||
      named ||
      specific ||
      (wrapped ?? w.wrapped?.test(words) === true) ||
      (action !== undefined && complete);
    if (acted && score >= 2) scores.push({ tool: w.tool, score, object });
  }
  // Highest first; of two as high, the one the action's object names ("check my invoice … from my
  // workspace" is about the invoice); other ties keep the spec's order.
  return scores.sort((a, b) => b.score - a.score || Number(b.object) - Number(a.object));
}

/** How many of the patterns the text matches. */
function countMatches(patterns: readonly RegExp[], text: string): number {
  let count = 0;
  for (const pattern of patterns) if (pattern.test(text)) count++;
  return count;
}

/**
 * The first action a text asks for. "noise-cancelling headphones" names a product, not a request
 * to cancel; "my quote" names a thing the person holds, not the action of quoting ("a refund" is
 * still asked for).
 */
function firstAction(words: string, actions: RegExp): RegExpExecArray | undefined {
  for (const m of words.matchAll(actions))
    if (
      words[m.index - 1] !== "-" &&
      !POSSESSIVE_BEFORE.test(words.slice(Math.max(0, m.index - 8), m.index)) &&
      !inBrackets(words, m.index) &&
      // "Let's see if this works" wonders; it asks to see nothing.
      !/^\s+(if|whether)\b/.test(words.slice(m.index + m[0].length)) &&
      !toldOfBefore(words, m) &&
      !NOT_WANTED_BEFORE.test(words.slice(Math.max(0, m.index - 32), m.index))
    )
      return m;
  return undefined;
}

/**
 * An action the person says is not to be done ("you don't need to check who I am", "no need to
 * cancel"): what they want is asked for elsewhere. Not "can't", which tells what they could not do.
 */
const NOT_WANTED_BEFORE = /\b(don['’]?t|do not|no need to|never)\s+(\S+\s+){0,2}$/;

/** Someone other than the person, as the subject of what happened before. */
const OTHER_SUBJECT =
  /\b(you|your (system|app|site|website|team|colleague)|the (system|app|site)|it|they|someone)\s+$/;

/**
 * "Your system gave me an error": an action in the past with another as its subject tells what
 * happened, not what the person asks for ("can you cancel" still asks).
 */
function toldOfBefore(words: string, m: RegExpExecArray): boolean {
  const action = m[0].toLowerCase();
  const past = /ed$/.test(action) || IRREGULAR_PAST.has(action);
  return past && OTHER_SUBJECT.test(words.slice(Math.max(0, m.index - 24), m.index));
}

/** Simple past forms that do not end in -ed. */
const IRREGULAR_PAST = new Set([
  "gave",
  "sent",
  "made",
  "took",
  "put",
  "got",
  "set",
  "paid",
  "sold",
  "bought",
  "told",
  "found",
  "left",
  "kept",
  "held",
  "froze",
  "wrote",
]);

/** Whether a place in a text is inside brackets: a record's name ("my port (Basalt port request)"), not a request. */
function inBrackets(text: string, at: number): boolean {
  return text.lastIndexOf("(", at) > text.lastIndexOf(")", at);
}

/** Per spec, each one-swap typo of its words, and the word it is a typo of. */
const typosOf = new WeakMap<WorldModel, Map<string, string>>();

/**
 * Mends one-swap typos of the tools' own words and choices ("suspned" → "suspend", "urgnet" →
 * "urgent") in lower-case text, as a reader would. Every swap of two neighbouring letters of every
 * word is listed once per spec, so a typo is one lookup. Of the words with the same letters, the
 * last listed is the one kept, and its swaps name it.
 */
export function untypo(text: string, model: WorldModel): string {
  let typos = typosOf.get(model);
  if (!typos) {
    const byLetters = new Map<string, string>();
    for (const tool of model.tools.values()) {
      const w = toolWords(tool.tool);
      const choices = Object.values(propertiesOf(tool)).flatMap((schema) =>
        Array.isArray(schema?.enum) ? schema.enum.map((o) => String(o).toLowerCase()) : [],
      );
      // Choices first: of words with the same letters, a tool's own word wins.
      for (const word of [
        ...choices.flatMap((c) => c.split(/[_\s-]+/)),
        ...snake(tool.tool.name).split("_"),
        ...w.actions,
        ...w.nouns,
      ])
        if (/^[a-z]{5,}$/.test(word)) byLetters.set([...word].sort().join(""), word);
    }
    typos = new Map();
    for (const word of byLetters.values())
      for (const typo of swapTypos(word)) typos.set(typo, word);
    typosOf.set(model, typos);
  }
  const known = typos;
  return text.replace(/[a-z]{5,}/g, (word) => known.get(word) ?? word);
}

/** "someone" and "somebody" with two letters swapped, as people type them ("somoene"). */
const SOMEONE = new Map(["someone", "somebody"].map((word) => [[...word].sort().join(""), word]));

/** Whether the person asks to speak to a person (and is not saying they do not want one). */
export function wantsHuman(text: string): boolean {
  const words = text
    .toLowerCase()
    .replace(QUOTED, " ")
    .replace(/\b[a-z]{7,8}\b/g, (word) => SOMEONE.get([...word].sort().join("")) ?? word);
  return WANTS_HUMAN.test(words) && !REFUSES_HUMAN.test(words);
}

/** Identifiers, emails, amounts, dates and enum values a message gives for a tool's arguments. */
export function argumentsIn(
  model: WorldModel,
  tool: ToolModel,
  text: string,
): Record<string, unknown> {
  // Keyed by the spec's parameter names: no prototype, so `__proto__` is read like any other.
  const found: Record<string, unknown> = keyed();
  for (const param of Object.keys(tool.tool.parameters.properties ?? {})) {
    const read = readValue(model, tool, param, text, false);
    if (read) found[param] = read.value;
  }
  return found;
}

/** Whether a policy asks for the person's yes before this write, as the spec's policy is read. */
export function needsConfirmation(agent: Agent, tool: ToolModel): boolean {
  if (tool.kind !== "change" && tool.kind !== "create") return false;
  return Object.hasOwn(agent.policy.confirmation, tool.tool.name);
}
