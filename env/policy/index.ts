import type { Rule, ToolDefinition } from "../../spec/index.ts";
import { asksYes, clausesOf, descriptionAsksYes, IDENTITY, waivesYes } from "./confirmation.ts";
import { type Passage, passagesOf } from "./markdown.ts";
import { EVERY_WRITE, spoken, ToolMatcher } from "./scope.ts";
import { contentWords, isRule, normalised, sameRule } from "./statements.ts";

export { clean } from "./markdown.ts";

/** One rule as read: the tools it is paired with and why, and what kind of rule it is. */
export interface RuleReading {
  id: string;
  text: string;
  section?: string;
  /** The tools the rule is paired with in the grid, or null for every tool. */
  tools: string[] | null;
  /** Why it has that scope: "as written", "names cancel_order", "speaks of cancelling … order". */
  scope: string;
  /** For a rule written without a scope: the tools its words speak of, for the user to consider. */
  suggested?: string[];
  /** It asks for the person's yes before acting. */
  confirmation: boolean;
  /** It asks the agent to check who the person is first. */
  identity: boolean;
}

/** A passage of a markdown policy that did not become a rule, and why. */
export interface DroppedPassage {
  text: string;
  section?: string;
  why: string;
}

/** The policy as the engine reads it: the rules of the rule axis, and what they ask of the agent. */
export interface PolicyReading {
  /** `rules` when the spec gave a list (kept as written), `markdown` when it was read from prose. */
  source: "rules" | "markdown";
  /** The rules of the rule axis, with their scopes. */
  rules: Rule[];
  read: RuleReading[];
  /** Markdown passages that are not rules: statements of fact, duplicates of an earlier rule. */
  dropped: DroppedPassage[];
  /** The tools whose call needs the person's yes first, and what says so. */
  confirmation: Record<string, string>;
  /** Writes a policy sentence says need no yes, and the sentence. */
  exempt: Record<string, string>;
  /** Whether the policy asks the agent to check who the person is before acting, and which rule. */
  identity: { required: boolean; rule: string | null };
}

/**
 * Reads a policy as a person would. A rule list is kept as written (its scopes are the author's);
 * a markdown policy is split into passages that keep their headings as context, statements of
 * fact are set aside, duplicates merged, and each rule scoped to the tools it names or whose
 * action it speaks of. Then, from the rules, the system prompt and the tools' own descriptions:
 * which writes need the person's yes, which are exempt, and whether identity comes first.
 */
export function readPolicy(
  policy: Rule[] | string,
  tools: readonly ToolDefinition[],
  systemPrompt: string,
): PolicyReading {
  const matcher = new ToolMatcher(tools);
  const dropped: DroppedPassage[] = [];
  const read =
    typeof policy === "string"
      ? fromMarkdown(policy, matcher, dropped)
      : policy.map((rule) => fromList(rule, matcher));
  const rules = read.map((r) => {
    const rule: Rule = { id: r.id, text: r.text };
    if (r.tools) rule.tools = r.tools;
    if (r.section) rule.section = r.section;
    return rule;
  });
  const { confirmation, exempt } = confirmations(read, dropped, tools, systemPrompt, matcher);
  const identityRule = read.find((r) => r.identity);
  return {
    source: typeof policy === "string" ? "markdown" : "rules",
    rules,
    read,
    dropped,
    confirmation,
    exempt,
    identity: {
      required: identityRule !== undefined || IDENTITY.test(systemPrompt),
      rule: identityRule?.id ?? null,
    },
  };
}

function fromList(rule: Rule, matcher: ToolMatcher): RuleReading {
  const reading: RuleReading = {
    id: rule.id,
    text: rule.text,
    tools: rule.tools ?? null,
    scope: rule.tools ? "as written" : "every tool, as written",
    confirmation: rule.text.split(/(?<=[.!?])\s+/).some(asksYes),
    identity: IDENTITY.test(rule.text),
  };
  if (rule.section) reading.section = rule.section;
  if (!rule.tools) {
    const m = matcher.mentions(rule.text);
    const spoken = [...m.named.tools, ...m.writes.tools, ...m.reads.tools];
    if (spoken.length > 0 && !reading.identity) reading.suggested = [...new Set(spoken)];
  }
  return reading;
}

function fromMarkdown(
  markdown: string,
  matcher: ToolMatcher,
  dropped: DroppedPassage[],
): RuleReading[] {
  const read: RuleReading[] = [];
  const kept: { words: Set<string>; id: string }[] = [];
  const ids = new Set<string>();
  for (const passage of passagesOf(markdown)) {
    const section = passage.headings.join(" › ") || undefined;
    const note = (why: string) =>
      dropped.push(section ? { text: passage.text, section, why } : { text: passage.text, why });
    if (!isRule(passage.text)) {
      note("a statement, not a rule");
      continue;
    }
    const words = contentWords(passage.text);
    const twin = kept.find((k) => sameRule(k.words, words));
    if (twin) {
      note(`says what ${twin.id} says`);
      continue;
    }
    const id = uniqueId(ruleId(passage), ids);
    kept.push({ words, id });
    const identity = IDENTITY.test(passage.text);
    const { tools, scope } = identity
      ? { tools: null, scope: "every tool: checking who the person is comes first" }
      : scopeOf(passage, matcher);
    const reading: RuleReading = {
      id,
      text: passage.text,
      tools,
      scope,
      confirmation: clausesOf(passage.text).some(asksYes),
      identity,
    };
    if (section) reading.section = section;
    read.push(reading);
  }
  return read;
}

/**
 * The tools a markdown rule concerns: those it names; the writes whose action it speaks of that
 * its section is about; every write when it speaks of every change (its section's tools, when the
 * section is about some); the writes it speaks of; its section's tools; the reads it speaks of;
 * else every tool.
 */
function scopeOf(
  passage: Passage,
  matcher: ToolMatcher,
): { tools: string[] | null; scope: string } {
  const whole = passage.lead ? `${passage.lead} ${passage.text}` : passage.text;
  // "…, but no confirmation is needed for looking up an order": an exemption does not scope the rule.
  const text = clausesOf(whole)
    .filter((clause) => !waivesYes(clause))
    .join(" ");
  const own = matcher.mentions(text);
  if (own.named.tools.length > 0) return { tools: own.named.tools, scope: own.named.why };
  // The outermost of several headings is most often the document's title, about no tool in particular.
  const headings = passage.headings.length > 1 ? passage.headings.slice(1) : passage.headings;
  const section = [...headings].reverse().flatMap((heading) => {
    const tools = matcher.headingTools(heading);
    return tools.length > 0 ? [{ heading, tools }] : [];
  })[0];
  const under = section ? `under the heading "${section.heading}"` : "";
  const inSection = own.writes.tools.filter((t) => section?.tools.includes(t));
  if (inSection.length > 0) {
    const kept = spoken(new Map(inSection.map((t) => [t, own.writes.how.get(t) ?? ""])));
    return { tools: kept.tools, scope: `${kept.why}, ${under}` };
  }
  if (EVERY_WRITE.test(passage.text)) {
    if (section) return { tools: section.tools, scope: `speaks of any change, ${under}` };
    const writes = matcher.writes();
    if (writes.length > 0) return { tools: writes, scope: "speaks of every change" };
  }
  if (own.writes.tools.length > 0) return { tools: own.writes.tools, scope: own.writes.why };
  if (section) return { tools: section.tools, scope: under };
  if (own.reads.tools.length > 0) return { tools: own.reads.tools, scope: own.reads.why };
  return { tools: null, scope: "every tool: it names none" };
}

/** Which writes need the person's yes, from the rules, the system prompt and each tool's description; and which are exempt. */
function confirmations(
  read: readonly RuleReading[],
  dropped: readonly DroppedPassage[],
  tools: readonly ToolDefinition[],
  systemPrompt: string,
  matcher: ToolMatcher,
): { confirmation: Record<string, string>; exempt: Record<string, string> } {
  const writes = new Set(matcher.writes());
  const confirmation: Record<string, string> = {};
  const exempt: Record<string, string> = {};
  const need = (names: Iterable<string>, why: string) => {
    for (const name of names)
      if (writes.has(name) && !Object.hasOwn(confirmation, name)) confirmation[name] = why;
  };
  const sources = [
    ...read.map((r) => ({ text: r.text, scope: r.tools, why: `rule ${r.id}` })),
    ...dropped.map((d) => ({ text: d.text, scope: null, why: "" })),
    ...clausesOf(systemPrompt).map((text) => ({ text, scope: null, why: "the system prompt" })),
  ];
  for (const { text, scope, why } of sources) {
    for (const clause of clausesOf(text)) {
      const waives = waivesYes(clause);
      if (!waives && !asksYes(clause)) continue;
      const m = matcher.mentions(clause);
      const spoken = [...m.named.tools, ...m.writes.tools];
      if (waives) {
        for (const name of spoken) if (!Object.hasOwn(exempt, name)) exempt[name] = clause;
        continue;
      }
      // A statement of fact that mentions a yes ("After confirmation, the order is paid") asks for none.
      if (why === "") continue;
      need(scope ?? (spoken.length > 0 ? spoken : writes), why);
    }
  }
  for (const name of Object.keys(exempt)) delete confirmation[name];
  for (const tool of tools)
    if (writes.has(tool.name) && descriptionAsksYes(tool.description))
      confirmation[tool.name] = "its description";
  return { confirmation, exempt };
}

const STOP_WORDS = new Set([
  "a",
  "an",
  "the",
  "to",
  "of",
  "and",
  "or",
  "it",
  "is",
  "be",
  "any",
  "that",
  "for",
  "with",
  "you",
  "your",
  "always",
  "must",
  "should",
  "please",
]);

function slug(text: string, words: number, length: number): string {
  return normalised(text)
    .replace(/['’]/g, "")
    .split(" ")
    .filter((w) => w && !STOP_WORDS.has(w) && /^[a-z0-9]+$/.test(w))
    .slice(0, words)
    .join("_")
    .slice(0, length)
    .replace(/_+$/, "");
}

/** A readable id: the innermost heading's first words, then the rule's ("cancel_pending_order.order_must_be_pending"). */
function ruleId(passage: Passage): string {
  const text = slug(passage.text, 5, 36) || "rule";
  const heading = passage.headings.at(-1);
  const section = heading ? slug(heading, 3, 22) : "";
  const id = section ? `${section}.${text}` : text;
  return /^[a-z0-9]/.test(id) ? id : `rule_${id}`;
}

/** An id no earlier rule has: the id itself, else the first free `id_2`, `id_3`… */
function uniqueId(id: string, taken: Set<string>): string {
  let candidate = id;
  for (let n = 2; taken.has(candidate); n++) candidate = `${id}_${n}`;
  taken.add(candidate);
  return candidate;
}
