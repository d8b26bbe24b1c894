import type { Agent } from "../agent.ts";
import { EMAIL } from "../grade/identifiers.ts";
import { lookup } from "../lookup.ts";
import { regexLiteral } from "../regex.ts";
import type { EntityModel, ToolModel, WorldModel } from "../world/model.ts";
import { snake } from "../world/model.ts";
import { singular } from "../world/values.ts";

/** Verbs a person uses for each tool verb ("check my order" → get_order). */
const SAID_AS: Record<string, string[]> = {
  get: ["check", "look up", "status"],
  list: ["see", "list", "show"],
  track: ["track", "where is"],
  update: ["change", "update"],
  create: ["open", "create", "new"],
  refund: ["refund"],
  transfer: ["transfer", "move", "send"],
  pay: ["pay"],
  cancel: ["cancel"],
  freeze: ["freeze", "lost", "stolen"],
  close: ["close"],
  reset: ["reset"],
  exchange: ["exchange", "swap"],
};

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
]);

/** A quotation (bounded, so an unclosed quote mark cannot make the scan quadratic). */
const QUOTED = /"[^"\n]{0,400}"|“[^”\n]{0,400}”/g;

/** The tool a request is for: the one whose verb and nouns the person's words mention most. */
export function intentOf(model: WorldModel, text: string): ToolModel | null {
  // Quoted words are the person citing something (a rule, a message), not asking for it.
  const words = untypo(text.toLowerCase().replace(QUOTED, " "), model);
  let best: ToolModel | null = null;
  let bestScore = 0;
  for (const tool of model.tools.values()) {
    if (tool.kind === "handoff") {
      if (
        /\b(human|real person|someone else|manager|representative)\b/.test(words) &&
        3 > bestScore
      ) {
        best = tool;
        bestScore = 3;
      }
      continue;
    }
    const nouns = snake(tool.tool.name).split("_").slice(1).map(singular);
    const said = [tool.verb, ...(lookup(SAID_AS, tool.verb) ?? [])].filter((v) =>
      new RegExp(`\\b${v}`).test(words),
    );
    let score = said.length === 0 ? 0 : said.some((v) => !GENERIC_VERBS.has(v)) ? 3 : 1;
    for (const noun of nouns) {
      if (noun.length <= 2 || !words.includes(noun)) continue;
      score++;
      if (tool.kind === "read_many" && new RegExp(`\\b${noun}s\\b`).test(words)) score++;
    }
    if (score > bestScore) {
      best = tool;
      bestScore = score;
    }
  }
  return bestScore >= 2 ? best : null;
}

/** Mends one-swap typos of the tools' own words ("excahnge" → "exchange"), as a reader would. */
function untypo(text: string, model: WorldModel): string {
  const vocabulary = new Set<string>();
  for (const tool of model.tools.values()) {
    for (const w of [...snake(tool.tool.name).split("_"), ...(lookup(SAID_AS, tool.verb) ?? [])])
      if (w.length > 4) vocabulary.add(w);
  }
  return text.replace(/[a-z]{5,}/g, (word) => {
    if (vocabulary.has(word)) return word;
    for (const known of vocabulary)
      if (known.length === word.length && oneSwapApart(word, known)) return known;
    return word;
  });
}

function oneSwapApart(a: string, b: string): boolean {
  const diff: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) diff.push(i);
  return (
    diff.length === 2 &&
    diff[1] === (diff[0] as number) + 1 &&
    a[diff[0] as number] === b[diff[1] as number] &&
    a[diff[1] as number] === b[diff[0] as number]
  );
}

/** Identifiers, emails, amounts and enum values a message gives for a tool's arguments. */
export function argumentsIn(
  model: WorldModel,
  tool: ToolModel,
  text: string,
): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  const properties = (tool.tool.parameters.properties ?? {}) as Record<
    string,
    { enum?: unknown[]; type?: string }
  >;
  for (const [param, entityName] of tool.idEntities) {
    const format = (model.entities.get(entityName) as EntityModel).idFormat;
    const role = tool.refs.find((r) => r.param === param)?.role ?? null;
    const matches = format.locate(text);
    const chosen =
      matches.filter((m) => !role || roleBefore(text, m.at) === role).at(-1) ??
      (role ? undefined : matches.at(-1));
    if (chosen) found[param] = format.numeric ? Number(chosen.value) : chosen.value;
  }
  for (const ref of tool.refs) if (ref.by === "email") addEmail(found, ref.param, text);
  if (tool.idParam && tool.idByEmail) addEmail(found, tool.idParam, text);
  if (tool.amountParam) {
    const amounts = [...text.matchAll(/(?:[$£€]\s?)?\b(\d{1,7}\.\d{2})\b/g)];
    const last = amounts.at(-1);
    if (last) found[tool.amountParam] = Number(last[1]);
  }
  for (const [param, schema] of Object.entries(properties)) {
    if (!Array.isArray(schema.enum)) continue;
    // Quoted words are the person citing something (a rule), not choosing a value.
    const lower = text.toLowerCase().replace(QUOTED, " ");
    const hit = schema.enum
      .filter(
        (v) =>
          typeof v === "string" &&
          new RegExp(
            `(^|[^a-z0-9])${regexLiteral(v).replace(/_/g, "[ _]")}($|[^a-z0-9])`,
            "i",
          ).test(lower),
      )
      .at(-1);
    if (hit !== undefined) found[param] = hit;
  }
  return found;
}

/** The direction word just before an identifier: "from my account X" → from, "to X" → to. */
function roleBefore(text: string, at: number): "from" | "to" | null {
  const before = text.slice(Math.max(0, at - 30), at).toLowerCase();
  const from = before.lastIndexOf("from ");
  const to = Math.max(before.lastIndexOf("to "), before.lastIndexOf("into "));
  if (from < 0 && to < 0) return null;
  return from > to ? "from" : "to";
}

function addEmail(found: Record<string, unknown>, param: string, text: string): void {
  const email = [...text.matchAll(EMAIL)].at(-1)?.[0];
  if (email) found[param] = email;
}

/** A free-text answer without its lead-in and closing punctuation: "Sure, it's 5 Quay Street." → "5 Quay Street". */
export function bareAnswer(text: string): string {
  return text
    .trim()
    .replace(
      /^(hello!?\s*)?((sure|ok|okay|yes|yeah)[,!.]?\s*)?((it'?s|it is|that'?s|that is|the [\w ]{1,30}? is)\s+)?/i,
      "",
    )
    .replace(/\s*(thank you\.?|thanks\.?)$/i, "")
    .replace(/[.!?]+$/, "")
    .trim();
}

/** Whether a policy asks for the person's yes before this write, reading the rules as an agent would. */
export function needsConfirmation(agent: Agent, tool: ToolModel): boolean {
  if (tool.kind !== "change" && tool.kind !== "create") return false;
  let needed = false;
  for (const rule of agent.rules) {
    const text = rule.text.toLowerCase();
    if (!/confirm|explicit yes|read back|approv|wait for/.test(text)) continue;
    if (rule.tools && !rule.tools.includes(tool.tool.name)) continue;
    const names = [tool.verb, ...snake(tool.tool.name).split("_").slice(1)];
    const exempt =
      /\b(not needed|not required|no need|without confirm)/.test(text) &&
      names.some((n) => n.length > 2 && text.includes(n));
    if (exempt) return false;
    needed = true;
  }
  return needed || /confirm/i.test(agent.system_prompt);
}
