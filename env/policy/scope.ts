import type { ToolDefinition } from "../../spec/index.ts";
import { nameWords } from "../tools.ts";
import {
  inflections,
  nameNouns,
  nounForms,
  phrasePattern,
  type ToolWords,
  toolWords,
} from "./words.ts";

/** The tools a passage of text speaks of, and how it speaks of each. */
export interface Mention {
  tools: string[];
  why: string;
  /** By tool: the words that name it ("cancelling … order"). */
  how: Map<string, string>;
}

/** What a passage says of the tools: those it names, the writes and the reads whose action it speaks of. */
export interface Mentions {
  named: Mention;
  writes: Mention;
  reads: Mention;
}

/** Words that make an action word a noun ("any transfer", "each refund"), so it names the action alone. */
const DETERMINERS = new Set([
  "a",
  "an",
  "any",
  "the",
  "each",
  "every",
  "no",
  "this",
  "that",
  "all",
]);
/** Clauses of a sentence: a tool is named when its action and its noun share one. */
const CLAUSES = /[.;:!?()]+\s*|,\s+(?:but|and then|then|or|so)\s+|\s+-\s+/;
/** Action words too common to name one tool without its noun ("make a change", "the update"). */
const GENERIC_VERBS = [
  "change",
  "changes",
  "update",
  "updates",
  "modify",
  "edit",
  "get",
  "check",
  "see",
  "view",
  "show",
  "use",
  "add",
  "set",
  "make",
  "give",
  "find",
  "look up",
  "search",
  "list",
  "request",
  "ask for",
  "open",
  "move",
  "send",
  "start",
  "pass",
  "hand",
];
const GENERIC_ACTIONS = new Set(GENERIC_VERBS.flatMap(inflections));
/** Words a clause may open with before an imperative verb ("Only submit after a yes"). */
const OPENERS = new Set([
  "only",
  "always",
  "never",
  "then",
  "please",
  "also",
  "first",
  "to",
  "do",
  "not",
  "don't",
]);
/** Words for money, which tools taking an amount move. */
const MONEY = ["money", "funds", "fund", "payment", "payments", "cash"];
/** Speaks of moving money, which every write taking an amount does ("before any payment", "moves money"). */
const MOVES_MONEY =
  /\b(mov(e|es|ed|ing) (the )?(money|funds)|money (movement|transfers?)|sen(d|ds|ding|t) (money|funds)|(transfers?|movements?) of (money|funds)|payments?)\b/i;
/** How text speaks of handing a conversation over, whatever the hand-off tool is called. */
const HANDOFF_ACTIONS = [
  "hand",
  "hand over",
  "hand off",
  "transfer",
  "pass",
  "escalate",
  "connect",
  "route",
].flatMap(inflections);
const HANDOFF_NOUNS = [
  "human",
  "humans",
  "person",
  "agent",
  "agents",
  "representative",
  "colleague",
  "manager",
  "specialist",
  "staff",
  "team",
  "supervisor",
  "someone",
  "care",
  "support",
  "desk",
];
/** Reads are named by their action and a noun close after it ("look up the order"), not anywhere in a clause. */
const READ_REACH = 4;

/** Speaks of every write ("before any consequential action", "anything that changes the database"). */
export const EVERY_WRITE =
  /\b(consequential actions?|any (action|change|update|modification|write)s?\b|actions? that (change|update|modify|alter|affect)|(update|change|modify|alter|write to) the (database|system|records?)|before (making|taking|performing|carrying out) (any )?(changes?|actions?|updates?)|every (change|write|update|action)|all (changes|writes|updates|actions)|(make|makes|making) (a |any )?changes?\b|change (anything|something)|act on (the |their )?(account|request))\b/i;

interface Matcher {
  words: ToolWords;
  names: RegExp;
  actions: RegExp;
  wrapped: Set<string>;
  nouns: RegExp | null;
  reads: boolean;
  /** It takes an amount, so it moves money. */
  amount: boolean;
}

/** Matches text against the words of a spec's tools. */
export class ToolMatcher {
  readonly #tools: Matcher[];

  constructor(tools: readonly ToolDefinition[]) {
    this.#tools = tools
      .filter((t) => t.role !== "utility")
      .map((tool) => {
        const words = toolWords(tool);
        const handoff = tool.role === "handoff";
        const amount = Object.keys(tool.parameters.properties ?? {}).some((p) => /amount/i.test(p));
        const actions = handoff ? [...words.actions, ...HANDOFF_ACTIONS] : words.actions;
        const nouns = handoff
          ? [...words.nouns, ...HANDOFF_NOUNS]
          : amount
            ? [...words.nouns, ...MONEY]
            : words.nouns;
        return {
          words,
          names: phrasePattern(words.names) as RegExp,
          actions: phrasePattern([...actions, ...words.wrapped]) as RegExp,
          // "transfer" speaks of a hand-off only with whom to ("transfer them to a person").
          wrapped: new Set(handoff ? [...words.wrapped, ...HANDOFF_ACTIONS] : words.wrapped),
          nouns: phrasePattern(nouns),
          reads: tool.access === "read" && !handoff,
          amount,
        };
      });
  }

  /** The tools the text names, and the writes and reads whose action it speaks of, each with an example of how. */
  mentions(text: string): Mentions {
    const named = this.#tools.filter((t) => t.names.test(text)).map((t) => t.words.tool.name);
    const clauses = text.split(CLAUSES);
    const writes = new Map<string, string>();
    const reads = new Map<string, string>();
    const money = MOVES_MONEY.exec(text);
    if (money)
      for (const t of this.#tools)
        if (t.amount && !t.reads) writes.set(t.words.tool.name, money[0]);
    for (const t of this.#tools) {
      for (const clause of clauses) {
        if (writes.has(t.words.tool.name)) break;
        const how = t.reads ? readAction(t, clause) : writeAction(t, clause);
        if (how === null) continue;
        (t.reads ? reads : writes).set(t.words.tool.name, how);
        break;
      }
    }
    return {
      named: { tools: named, why: `names ${named.join(", ")}`, how: new Map() },
      writes: spoken(writes),
      reads: spoken(reads),
    };
  }

  /**
   * The tools a heading is about: those it names or whose action it speaks of ("Cancel pending
   * order"), else those whose nouns it names ("Payment plans").
   */
  headingTools(heading: string): string[] {
    // Every passage of a section asks about the same headings: each is read once.
    let tools = this.#byHeading.get(heading);
    if (!tools) {
      tools = this.#headingTools(heading);
      this.#byHeading.set(heading, tools);
    }
    return [...tools];
  }

  readonly #byHeading = new Map<string, string[]>();

  #headingTools(heading: string): string[] {
    const m = this.mentions(heading);
    const acted = [...new Set([...m.named.tools, ...m.writes.tools, ...m.reads.tools])];
    // Of several tools a heading acts on, those it names most of ("Update default address" is
    // the default address's tool, not an order address's).
    if (acted.length > 1) {
      const scored = this.#tools
        .filter((t) => acted.includes(t.words.tool.name))
        .map((t) => ({ t, hits: nameHits(t, heading).hits }));
      const best = Math.max(...scored.map((s) => s.hits));
      return scored.filter((s) => s.hits === best).map((s) => s.t.words.tool.name);
    }
    if (acted.length > 0) return acted;
    // By the words of their names: the tools with most of them in the heading, at least half; a
    // heading that fits many tools ("Claims assistant guidelines") is about none in particular.
    const scored = this.#tools.map((t) => ({ t, ...nameHits(t, heading) }));
    const best = Math.max(0, ...scored.filter((s) => s.enough).map((s) => s.hits));
    const top = scored.filter((s) => s.enough && s.hits === best);
    return best > 0 && top.length <= 3 ? top.map((s) => s.t.words.tool.name) : [];
  }

  /** The spec's tools that change the world. */
  writes(): string[] {
    return this.#tools
      .filter((t) => t.words.tool.access === "write" && t.words.tool.role === "normal")
      .map((t) => t.words.tool.name);
  }
}

/**
 * How many words of a tool's name a heading says (its nouns, and its verb in any form: "Modify
 * payment" says two of modify_pending_order_payment's four), and whether that is at least half.
 */
function nameHits(t: Matcher, heading: string): { hits: number; enough: boolean } {
  // "Retail agent policy" is the agent's own policy, not about the transfer-to-agents tool.
  const nouns = nameNouns(t.words).filter((n) => !ROLE_NOUNS.test(n));
  const named = nameWords(t.words.tool.name).filter(
    (w) => w.length > 2 && !nouns.includes(w) && !ROLE_NOUNS.test(w),
  );
  const words = [...nouns, ...named];
  const hits =
    nouns.filter((n) => phrasePattern(nounForms(n))?.test(heading)).length +
    named.filter((w) => phrasePattern(inflections(w))?.test(heading)).length;
  return { hits, enough: words.length > 0 && hits * 2 >= words.length };
}

/** Nouns every policy uses of the parties to a conversation, which say nothing of a tool. */
const ROLE_NOUNS =
  /^(agents?|assistants?|bots?|representatives?|humans?|persons?|people|staff|teams?|users?|customers?|policy|policies|guidelines?)$/;

/** The tools spoken of, and why: how the first of them was spoken of. */
export function spoken(how: Map<string, string>): Mention {
  const [first] = how.values();
  return { tools: [...how.keys()], why: `speaks of ${first ?? "nothing"}`, how };
}

/**
 * A write is spoken of by its action with its noun in one clause, or by a distinctive action alone
 * where it can only mean the action: used as a noun ("any refund"), as a gerund ("before
 * booking"), or as the clause's imperative ("Only submit after a yes").
 */
function writeAction(t: Matcher, clause: string): string | null {
  const action = t.actions.exec(clause);
  if (!action) return null;
  const noun = t.nouns?.exec(clause);
  if (noun) return `${action[0]} … ${noun[0]}`;
  const word = action[0].toLowerCase();
  if (GENERIC_ACTIONS.has(word) || t.wrapped.has(word)) return null;
  const before = clause
    .slice(0, action.index)
    .toLowerCase()
    .split(/[^a-z']+/)
    .filter(Boolean);
  const [w1, w2, w3] = [before.at(-1), before.at(-2), before.at(-3)];
  const determined =
    DETERMINERS.has(w1 ?? "") ||
    DETERMINERS.has(w2 ?? "") ||
    ((w1 === "or" || w1 === "and") && DETERMINERS.has(w3 ?? ""));
  const imperative = before.every((w) => OPENERS.has(w));
  // "before you refund", "to refund": a verb with its subject or its "to" is the action itself.
  const acted = w1 === "you" || w1 === "we" || w1 === "to";
  return determined || imperative || acted || /ing$/.test(word) ? action[0] : null;
}

/** A read is spoken of by its action with its noun a few words after ("look up the order"). */
function readAction(t: Matcher, clause: string): string | null {
  if (!t.nouns) return null;
  const actions = new RegExp(t.actions.source, "gi");
  for (const action of clause.matchAll(actions)) {
    const after = clause.slice(action.index + action[0].length);
    const noun = t.nouns.exec(after);
    if (!noun) continue;
    const gap = after.slice(0, noun.index).trim().split(/\s+/).filter(Boolean).length;
    if (gap <= READ_REACH) return `${action[0]} … ${noun[0]}`;
  }
  return null;
}
