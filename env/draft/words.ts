import type { Agent } from "../agent.ts";

/** A tool as the spec's reading gives it. */
export type ToolDefinition = Agent["tools"][number];

/** Words that carry no subject of their own. */
export const STOP = new Set(
  "a an the it its they them he she his her their to of for and or but before after when while with without any every all each on in at by from into about as is are be been being that this these those you your our we us i my me do does did can could would should will shall may might please want need like what where how why which who not no yes just also so than then there here have has had get got".split(
    " ",
  ),
);

/** Words that name the same kind of action or object; a word reaches every tool named by its group. */
export const GROUPS: readonly (readonly string[])[] = [
  [
    "money",
    "fund",
    "payment",
    "pay",
    "transfer",
    "refund",
    "charge",
    "withdraw",
    "deposit",
    "bill",
    "send",
  ],
  ["move", "transfer", "send", "pay"],
  ["cancel", "cancellation", "withdraw", "delete", "remove", "terminate", "close"],
  ["change", "update", "modify", "edit", "reschedule", "switch", "move"],
  ["book", "booking", "reserve", "reservation", "schedule", "appointment"],
  ["refund", "reimburse", "return", "money"],
  ["password", "reset", "credential", "login"],
  ["claim", "file", "submit"],
  ["plan", "subscription", "upgrade", "downgrade"],
  ["flight", "reservation", "ticket", "trip"],
  ["order", "purchase"],
  ["parcel", "package", "shipment", "delivery", "shipping", "track"],
  ["personal", "email", "address", "phone", "data"],
];

/** The forms a word may take in a tool's name: a gerund with and without its dropped e or doubled consonant. */
function forms(word: string): string[] {
  if (!word.endsWith("ing") || word.length <= 5) return [word];
  const stem = word.slice(0, -3);
  const out = [stem, `${stem}e`];
  if (/([a-z])\1$/.test(stem)) out.push(stem.slice(0, -1));
  return out;
}

/** A word's base form: third person and plural endings off. */
export function base(word: string): string {
  if (word.length <= 3 || word.endsWith("ss")) return word;
  if (word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (/(ch|sh|x|z|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s")) return word.slice(0, -1);
  return word;
}

/** A name's or text's words, in base form: `transfer_funds` → transfer, fund. */
export function tokens(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((word) => word !== "")
    .map(base);
}

/** A word with every word it reaches: its own forms and the groups they belong to. */
export interface Concept {
  word: string;
  reach: Set<string>;
}

/** The content words of a text, each with what it reaches. */
export function conceptsOf(words: readonly string[]): Concept[] {
  return words
    .map(base)
    .filter((word) => word !== "" && !STOP.has(word))
    .map((word) => {
      const reach = new Set(forms(word));
      for (const form of forms(word))
        for (const group of GROUPS)
          if (group.includes(form)) for (const other of group) reach.add(other);
      return { word, reach };
    });
}

/** Whether a concept names a tool: by a word of its name, or by two words of its description. */
export function names(concept: Concept, tool: ToolDefinition): boolean {
  if (tokens(tool.name).some((token) => concept.reach.has(token))) return true;
  const description = new Set(tokens(tool.description));
  return [...concept.reach].filter((word) => description.has(word)).length >= 2;
}
