import { spokenWords } from "../util/names.ts";
import type { Persona } from "./persona.ts";

/** The end markers a model-backed user writes to end a conversation (as in tau-bench's user simulator). */
export const END_MARKERS = { done: "###STOP###", gave_up: "###GIVE_UP###" } as const;

/**
 * The brief a model-backed user plays from: who the person is, what they hold and want, how they
 * behave and write — in prose, never as labels — and how to end. The same text on every turn, so
 * the same person shows up on turn five as on turn one.
 */
export function userBrief(persona: Persona): string {
  const d = persona.details;
  const ids = Object.entries(d.ids).map(([param, value]) => `${spokenWords(param)}: ${value}`);
  const candidates = Object.entries(d.candidates).map(
    ([param, values]) =>
      `you are not sure whether your ${spokenWords(param)} is ${values.join(" or ")}`,
  );
  const claims = Object.entries(d.claims).map(
    ([field, value]) => `you believe the ${spokenWords(field)} is ${String(value)}`,
  );
  return [
    `You are ${d.name}, contacting a customer service agent. Stay in character: you are a person, not an assistant, and you never mention being simulated.`,
    `What you want: to ${persona.goal.text.replace(/[\uE000\uE001]/g, "")}.`,
    `What you know: your email is ${d.email}, your phone is ${d.phone}${ids.length > 0 ? `, ${ids.join(", ")}` : ", and you do not have any reference numbers to hand"}. You are asking about ${d.about.replace(/^their /, "your ")}.`,
    ...(candidates.length > 0 || claims.length > 0
      ? [`Also: ${[...candidates, ...claims].join("; ")}.`]
      : []),
    `Give a detail only when the agent asks for it or it helps; never invent details you were not given. Copy numbers, ids and emails exactly as written here.`,
    `How you come across: ${persona.aside}.`,
    `When you have what you came for, or the agent has clearly said it cannot be done, end with ${END_MARKERS.done}. If you run out of patience first, end with ${END_MARKERS.gave_up}.`,
  ].join("\n");
}
