import type { ToolDefinition } from "../../spec/index.ts";
import { nameWords, verbOf } from "../tools.ts";
import { lookup } from "../util/lookup.ts";

/** Verbs people use for the same action as a tool's verb ("move money" for a transfer). */
const SYNONYMS: Record<string, string[]> = {
  cancel: ["cancel", "void", "call off"],
  modify: ["modify", "change", "update", "edit", "amend", "alter", "swap"],
  change: ["change", "modify", "update", "edit", "amend", "alter", "switch", "swap"],
  update: ["update", "change", "modify", "edit", "amend", "alter"],
  edit: ["edit", "change", "modify", "update"],
  transfer: ["transfer", "move", "send"],
  pay: ["pay", "payment"],
  book: ["book", "reserve", "schedule"],
  schedule: ["schedule", "book"],
  reschedule: ["reschedule", "move", "change"],
  create: ["create", "open", "file", "submit", "log", "raise"],
  open: ["open", "create", "file"],
  file: ["file", "submit", "open", "lodge"],
  remove: ["remove", "delete"],
  delete: ["delete", "remove"],
  freeze: ["freeze", "block", "lock"],
  get: ["get", "look up", "check", "see", "view", "show"],
  find: ["find", "locate", "look up", "search", "identify"],
  lookup: ["look up", "find", "locate", "search"],
  search: ["search", "find", "look up"],
  list: ["list", "see", "show"],
  restore: ["restore", "reactivate", "resume", "unsuspend"],
  suspend: ["suspend", "pause", "block"],
  refund: ["refund", "reimburse"],
  return: ["return", "send back"],
  exchange: ["exchange", "swap", "replace"],
  add: ["add"],
  setup: ["set up", "setup", "create", "start"],
  request: ["request", "ask for"],
  redeem: ["redeem", "use"],
  refill: ["refill", "renew"],
  reset: ["reset"],
  send: ["send", "email"],
  issue: ["issue", "generate", "give"],
  port: ["port", "bring over", "transfer"],
  invite: ["invite", "add"],
  submit: ["submit", "file", "send"],
  apply: ["apply", "add"],
  switch: ["switch", "change", "move"],
  register: ["register", "sign up", "enrol", "enroll"],
  escalate: ["escalate", "transfer", "hand"],
  handoff: ["hand", "transfer", "escalate", "pass"],
  hand: ["hand", "transfer", "pass"],
  verify: ["verify", "check", "authenticate", "confirm"],
  check: ["check", "verify", "look up"],
  calculate: ["calculate", "compute", "work out", "add up"],
};

/** Nouns an action is also called by: "a refund", "the cancellation", "a booking". */
const NOMINAL: Record<string, string[]> = {
  cancel: ["cancellation", "cancelation"],
  modify: ["modification"],
  change: [],
  book: ["booking"],
  transfer: [],
  pay: ["payment"],
  remove: ["removal"],
  suspend: ["suspension"],
  submit: ["submission"],
  redeem: ["redemption"],
  invite: ["invitation"],
  register: ["registration"],
  apply: ["application"],
  escalate: ["escalation"],
  verify: ["verification"],
  authenticate: ["authentication"],
  calculate: ["calculation"],
  restore: ["restoration", "reactivation"],
  setup: ["setup"],
};

/** Words in tool names that qualify a noun rather than name one: statuses, quantifiers, prepositions. */
const QUALIFIERS = new Set([
  "a",
  "an",
  "the",
  "to",
  "for",
  "by",
  "of",
  "in",
  "on",
  "with",
  "from",
  "my",
  "all",
  "new",
  "existing",
  "current",
  "id",
  "ids",
  "details",
  "detail",
  "info",
  "information",
  "data",
  "summary",
  "status",
  "overview",
  "pending",
  "delivered",
  "shipped",
  "draft",
  "active",
  "open",
  "closed",
  "confirmed",
  "scheduled",
  "upcoming",
  "default",
  "one",
  "single",
  "many",
  "multiple",
  "name",
  "zip",
  "email",
  "phone",
]);

/** Every inflection of a verb: cancel → cancel, cancels, cancelled, canceled, cancelling, canceling. */
export function inflections(verb: string): string[] {
  if (verb.includes(" ")) {
    const [head, ...rest] = verb.split(" ") as [string, ...string[]];
    return inflections(head).map((h) => [h, ...rest].join(" "));
  }
  const forms = new Set([verb, `${verb}s`, `${verb}es`]);
  const irregular: Record<string, string[]> = {
    pay: ["paid"],
    send: ["sent"],
    freeze: ["froze", "frozen"],
    set: ["set", "setting"],
    give: ["gave", "given", "giving"],
    get: ["got", "gotten", "getting"],
    find: ["found"],
    hand: ["handed", "handing"],
    reset: ["reset", "resetting"],
    setup: ["set up", "setting up"],
  };
  for (const f of lookup(irregular, verb) ?? []) forms.add(f);
  const stem = verb.endsWith("e") ? verb.slice(0, -1) : verb;
  forms.add(`${stem}ed`);
  forms.add(`${stem}ing`);
  if (/[^aeiou]y$/.test(verb)) {
    forms.add(`${verb.slice(0, -1)}ies`);
    forms.add(`${verb.slice(0, -1)}ied`);
  }
  if (/[^aeiou][aeiou][bdgklmnprt]$/.test(verb)) {
    forms.add(`${verb}${verb.at(-1)}ed`);
    forms.add(`${verb}${verb.at(-1)}ing`);
  }
  return [...forms];
}

/** English singular and plural of a noun, both. */
export function nounForms(noun: string): string[] {
  const forms = new Set([noun]);
  if (/[^aeiou]y$/.test(noun)) forms.add(`${noun.slice(0, -1)}ies`);
  else if (/(s|sh|ch|x|z)$/.test(noun)) forms.add(`${noun}es`);
  else forms.add(`${noun}s`);
  if (/ies$/.test(noun)) forms.add(`${noun.slice(0, -3)}y`);
  else if (/[^s]s$/.test(noun)) forms.add(noun.slice(0, -1));
  return [...forms];
}

/** What a tool is called in words: its verb's forms and synonyms, and the nouns it acts on. */
export interface ToolWords {
  tool: ToolDefinition;
  verb: string;
  /** Forms of the verb and its synonyms, and the nouns that name the action ("cancellation"). */
  actions: string[];
  /** Forms of an action the name wraps in a noun ("transfer" in `prescription_transfer_request`): they name the tool only with its nouns. */
  wrapped: string[];
  /** The nouns of the tool's name, singular and plural ("order", "orders"). */
  nouns: string[];
  /** The name itself, and its words as a phrase ("cancel pending order"). */
  names: string[];
}

/** The words by which text can speak of each tool. */
export function toolWords(tool: ToolDefinition): ToolWords {
  const words = nameWords(tool.name);
  const verb = verbOf(tool.name);
  const actions = new Set<string>();
  // A name that wraps its action in a noun ("prescription_transfer_request") is also spoken of by that action.
  const wrapped = words.filter((w) => w !== verb && isActionWord(w));
  for (const v of lookup(SYNONYMS, verb) ?? [verb]) {
    for (const form of inflections(v)) actions.add(form);
    for (const n of lookup(NOMINAL, v) ?? []) for (const form of nounForms(n)) actions.add(form);
  }
  const nouns = words
    .filter((w) => w !== verb && !QUALIFIERS.has(w) && w.length > 2 && !wrapped.includes(w))
    .flatMap(nounForms);
  return {
    tool,
    verb,
    actions: [...actions],
    wrapped: wrapped.flatMap(inflections),
    nouns: [...new Set(nouns)],
    names: [tool.name.toLowerCase(), words.join(" ")],
  };
}

/** Nouns in tool names that are also actions a person asks for ("transfer", "refill", "return"). */
const ACTION_NOUNS = new Set([
  "transfer",
  "refill",
  "return",
  "exchange",
  "refund",
  "cancel",
  "renewal",
  "change",
  "switch",
  "upgrade",
  "downgrade",
  "reset",
  "payment",
  "booking",
  "reschedule",
  "suspend",
  "port",
]);

function isActionWord(word: string): boolean {
  return ACTION_NOUNS.has(word);
}

/** The nouns of a tool's name in order ("payment", "plan"), its actions left out. */
export function nameNouns(words: ToolWords): string[] {
  return nameWords(words.tool.name).filter(
    (w) => w !== words.verb && !QUALIFIERS.has(w) && w.length > 2 && !ACTION_NOUNS.has(w),
  );
}

/** A pattern matching any of the phrases as whole words. */
export function phrasePattern(phrases: readonly string[]): RegExp | null {
  const parts = phrases
    .filter((p) => p.length > 0)
    .sort((a, b) => b.length - a.length)
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/ /g, "[\\s_-]+"));
  return parts.length === 0 ? null : new RegExp(`\\b(?:${parts.join("|")})\\b`, "i");
}
