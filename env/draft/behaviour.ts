import { base, conceptsOf, names, STOP, type ToolDefinition } from "./words.ts";

/** The behaviour a sentence asks for, as a policy rule bound to the tools it concerns. */
export interface BehaviourRule {
  id: string;
  /** The behaviour as the sentence says it. */
  said: string;
  /** The rule's text, in the imperative. */
  text: string;
  tools: string[];
  /** How the tools were chosen. */
  why: string;
}

/** Verbs whose behaviour checks a step before an action: their rule concerns tools that change something. */
const CHECKING = new Set([
  "confirm",
  "verify",
  "check",
  "ask",
  "double-check",
  "read",
  "seek",
  "get",
  "obtain",
  "require",
]);

/** The behaviour clause of a sentence: what follows "that", "who" or "which", or null. */
export function behaviourOf(sentence: string): string | null {
  const found = sentence.match(/\b(?:that|who|which)\s+(.+?)[.!]?\s*$/i);
  return found?.[1]?.trim().toLowerCase() ?? null;
}

/**
 * The sentence's behaviour as a rule: its text in the imperative ("confirms before it moves money"
 * → "Confirm before you move money."), bound to the tools whose names carry a word of the
 * behaviour's groups, or whose descriptions carry two; a checking verb (confirm, verify, ask…)
 * binds it to the tools that change something, and to all of them when none is named.
 */
export function behaviourRule(said: string, tools: readonly ToolDefinition[]): BehaviourRule {
  const words = said.split(/[^a-z-]+/).filter((word) => word !== "");
  const lead = ADVERBS.has(words[0] ?? "") ? 1 : 0;
  const verb = base(words[lead] ?? "");
  const concepts = conceptsOf(words.slice(lead + 1));
  // A tool's score: how many of the behaviour's words name it.
  const scored = tools.map((tool) => ({
    tool,
    score: concepts.filter((concept) => names(concept, tool)).length,
  }));
  const checking = CHECKING.has(verb);
  const eligible = scored.filter(
    ({ tool, score }) => score > 0 && (!checking || tool.access !== "read"),
  );
  const top = Math.max(0, ...eligible.map(({ score }) => score));
  const bound = eligible.filter(({ score }) => score === top).map(({ tool }) => tool);
  const writes = tools.filter((tool) => tool.access !== "read");
  const chosen = bound.length > 0 ? bound : checking ? writes : [];
  const named = concepts.map(({ word }) => word);
  const why =
    bound.length > 0
      ? `the tools named by most of "${[...new Set(named)].join('", "')}"${checking ? " that change something" : ""}`
      : checking
        ? "no tool is named by the behaviour's words: every tool that changes something"
        : "no tool is named by the behaviour's words: the rule applies everywhere";
  return {
    id:
      words
        .slice(lead)
        .map(base)
        .filter((word) => !STOP.has(word))
        .slice(0, 6)
        .join("_")
        .replace(/-/g, "_") || "behaviour",
    said,
    text: imperative(words, lead),
    tools: chosen.map((tool) => tool.name),
    why,
  };
}

/** Words that may come before the behaviour's verb: "never gives", "always asks". */
const ADVERBS = new Set(["never", "always", "only", "first", "politely", "carefully"]);

/** "confirms before it moves money" → "Confirm before you move money." */
function imperative(words: readonly string[], lead: number): string {
  const out: string[] = [];
  for (let n = 0; n < words.length; n++) {
    const word = words[n] as string;
    if (n < lead) out.push(word);
    else if (n === lead) out.push(base(word));
    else if (["it", "they", "he", "she"].includes(word) && words[n + 1]) {
      out.push("you", base(words[n + 1] as string));
      n++;
    } else out.push(word === "its" || word === "their" ? "your" : word);
  }
  const sentence = out.join(" ");
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
}
