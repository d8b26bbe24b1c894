import type { Rule, ToolDefinition } from "../../spec/index.ts";
import { keyed } from "../util/lookup.ts";
import { asksYes, clausesOf, descriptionAsksYes, IDENTITY, waivesYes } from "./confirmation.ts";
import { type Passage, passagesOf } from "./markdown.ts";
import { EVERY_WRITE, spoken, ToolMatcher } from "./scope.ts";
import { contentWords, isRule, KeptRules, normalised } from "./statements.ts";

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
  const prompt = plain(systemPrompt);
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
  const { confirmation, exempt } = confirmations(read, dropped, tools, prompt, matcher);
  const identityRule = read.find((r) => r.identity);
  return {
    source: typeof policy === "string" ? "markdown" : "rules",
    rules,
    read,
    dropped,
    confirmation,
    exempt,
    identity: {
      required: identityRule !== undefined || IDENTITY.test(prompt),
      rule: identityRule?.id ?? null,
    },
  };
}

function fromList(rule: Rule, matcher: ToolMatcher): RuleReading {
  const text = plain(rule.text);
  const reading: RuleReading = {
    id: rule.id,
    text: rule.text,
    tools: rule.tools ?? null,
    scope: rule.tools ? "as written" : "every tool, as written",
    confirmation: text.split(/(?<=[.!?]) /).some(asksYes),
    identity: IDENTITY.test(text),
  };
  if (rule.section) reading.section = rule.section;
  if (!rule.tools) {
    const m = matcher.mentions(text);
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
  const passages = passagesOf(markdown).map((passage) => {
    const rule = isRule(passage.text);
    return { passage, words: rule ? contentWords(passage.text) : null };
  });
  const kept = new KeptRules(passages.flatMap(({ words }) => (words ? [words] : [])));
  const ids = new RuleIds();
  // Passages of one section share their list of headings: its name is joined once.
  const sections = new Map<readonly string[], string | undefined>();
  for (const { passage, words } of passages) {
    let section = sections.get(passage.headings);
    if (!sections.has(passage.headings)) {
      section = passage.headings.join(" › ") || undefined;
      sections.set(passage.headings, section);
    }
    const note = (why: string) =>
      dropped.push(section ? { text: passage.text, section, why } : { text: passage.text, why });
    if (!words) {
      note("a statement, not a rule");
      continue;
    }
    const twin = kept.twin(words);
    if (twin !== undefined) {
      note(`says what ${twin} says`);
      continue;
    }
    const id = ids.take(ruleId(passage));
    kept.keep(words, id);
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
  // Keyed by tool names: no prototype, so a tool named `__proto__` is kept like any other.
  const confirmation: Record<string, string> = keyed();
  const exempt: Record<string, string> = keyed();
  const need = (names: Iterable<string>, why: string) => {
    for (const name of names)
      if (writes.has(name) && !Object.hasOwn(confirmation, name)) confirmation[name] = why;
  };
  const sources = [
    ...read.map((r) => ({ text: plain(r.text), scope: r.tools, why: `rule ${r.id}` })),
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
    if (writes.has(tool.name) && descriptionAsksYes(plain(tool.description)))
      confirmation[tool.name] = "its description";
  return { confirmation, exempt };
}

/**
 * Text as the policy is read: every run of whitespace one space. Rules of a list, the system prompt
 * and tool descriptions are read as written otherwise; a run of spaces thousands long would make
 * the patterns that read them try it from each of its spaces.
 */
function plain(text: string): string {
  return text.replace(/\s+/g, " ");
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

/** How much of a rule or heading its id is read from: its first words are all an id takes. */
const SLUG_READ = 500;

function slug(text: string, words: number, length: number): string {
  return normalised(text.slice(0, SLUG_READ))
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

/** The longest rule id: what a rule list may hold (`RuleIdSchema`), so ids read from markdown are valid ids too. */
const MOST_ID = 64;

/**
 * The ids given to rules read from markdown, never one twice: an id already given gets the first
 * free `_2`, `_3`… after it (shortened to fit 64 characters), and the number each id reached is
 * kept, so a thousand rules opening with the same words are numbered without searching from 2.
 */
class RuleIds {
  readonly #taken = new Set<string>();
  readonly #next = new Map<string, number>();

  /** An id no earlier rule has: `id` itself, else the next free numbered one. */
  take(id: string): string {
    let candidate = id;
    let n = this.#next.get(id) ?? 2;
    while (this.#taken.has(candidate)) {
      const suffix = `_${n++}`;
      candidate = `${id.slice(0, MOST_ID - suffix.length)}${suffix}`;
    }
    this.#next.set(id, n);
    this.#taken.add(candidate);
    return candidate;
  }
}
