import type { Rng } from "../rng.ts";
import { lookup } from "../util/lookup.ts";

/** How a person writes: the second layer sampled on top of the stance. */
export interface Style {
  case: "standard" | "lowercase";
  length: "clipped" | "standard" | "run_on";
  punctuation: "standard" | "sparse" | "emphatic";
  typos: boolean;
  politeness: "polite" | "neutral" | "curt";
  sarcastic: boolean;
  device: "phone" | "desktop";
}

/** Stances that lean a style one way (a hurried person clips, a confused one runs on). */
const LEANS: Record<string, Partial<Record<keyof Style, unknown>>> = {
  hurried: { length: "clipped", device: "phone", politeness: "curt" },
  confused: { length: "run_on" },
  insistent: { punctuation: "emphatic" },
  skeptical: { sarcastic: true },
  pressuring: { politeness: "curt" },
  cooperative: { politeness: "polite" },
};

/** Samples a style, leaning towards what the stance suggests half of the time. */
export function sampleStyle(rng: Rng, stance: string): Style {
  const style: Style = {
    case: rng.chance(0.3) ? "lowercase" : "standard",
    length: rng.pick(["clipped", "standard", "standard", "run_on"] as const),
    punctuation: rng.pick(["standard", "standard", "sparse", "emphatic"] as const),
    typos: rng.chance(0.3),
    politeness: rng.pick(["polite", "neutral", "neutral", "curt"] as const),
    sarcastic: rng.chance(0.15),
    device: rng.chance(0.5) ? "phone" : "desktop",
  };
  for (const [key, value] of Object.entries(lookup(LEANS, stance) ?? {})) {
    if (rng.chance(0.5)) (style as unknown as Record<string, unknown>)[key] = value;
  }
  return style;
}

/** The style as labels, for `persona.tags` (analysis only: no model is ever shown these). */
export function styleTags(style: Style): string[] {
  const tags: string[] = [];
  if (style.case === "lowercase") tags.push("lowercase");
  if (style.length !== "standard") tags.push(style.length);
  if (style.punctuation !== "standard") tags.push(`${style.punctuation}_punctuation`);
  if (style.typos) tags.push("typos");
  if (style.politeness !== "neutral") tags.push(style.politeness);
  if (style.sarcastic) tags.push("sarcastic");
  tags.push(style.device);
  return tags;
}

/**
 * The style told as a short prose aside, the way a user model is briefed: a model told to be terse
 * writes an essay about being terse, so it gets a picture of the person instead of labels.
 */
export function styleAside(style: Style): string {
  const parts: string[] = [];
  parts.push(style.device === "phone" ? "types on a phone" : "writes from a laptop");
  if (style.case === "lowercase") parts.push("never bothers with capital letters");
  if (style.length === "clipped") parts.push("keeps every message to a line");
  if (style.length === "run_on")
    parts.push("strings thoughts together in long breathless sentences");
  if (style.punctuation === "sparse") parts.push("drops most full stops");
  if (style.punctuation === "emphatic") parts.push("leans on exclamation marks");
  if (style.typos) parts.push("hits the wrong key now and then and does not go back");
  if (style.politeness === "polite") parts.push("says please and thank you");
  if (style.politeness === "curt") parts.push("skips greetings and thanks");
  if (style.sarcastic) parts.push("turns dry and cutting when things go wrong");
  return parts.join(", ");
}

/** Marks a value (an id, an email, an amount) that no style transform may touch. */
export function keep(value: string): string {
  return `\uE000${value}\uE001`;
}

const PROTECTED = /\uE000[^\uE001]*\uE001/g;

/** Thanks said as a phrase ("thanks for checking", "thanks anyway"), "please", and a greeting that opens the message. */
const COURTESY =
  /(,\s*)?\b(?:thanks|thank you)(?: (?:so much|a lot|anyway|again|for (?:the rest|checking|your help|that|looking)))?\b|\bplease\b,?\s*|^\s*(?:hi|hello|hey)(?: there)?\b[,!.]?\s*/gi;

/**
 * A message without its courtesies, whole phrases at a time so that nothing is left dangling
 * ("Alright, thanks for checking." → "Alright."); kept values are never touched, and a message of
 * nothing else is "Ok."
 */
function curt(text: string): string {
  const kept: string[] = [];
  const masked = text.replace(PROTECTED, (value) => `\uE002${kept.push(value) - 1}\uE003`);
  let bare = masked
    .replace(COURTESY, "")
    .replace(/\s+([,.!?])/g, "$1")
    .replace(/,([.!?])/g, "$1")
    .replace(/([.!?])[,.]+/g, "$1")
    .replace(/^[\s,.!?]+/, "")
    .replace(/\s{2,}/g, " ")
    .trim();
  if (!/[A-Za-z0-9\uE002]/.test(bare)) return "Ok.";
  // A sentence whose first word went ("Please try again.") starts with a capital still.
  if (/^\s*[A-Z]/.test(text))
    bare = bare.replace(
      /(^|[.!?]\s+)([a-z])/g,
      (_, at: string, letter: string) => `${at}${letter.toUpperCase()}`,
    );
  return bare.replace(/\uE002(\d+)\uE003/g, (_, at: string) => kept[Number(at)] as string);
}

/**
 * Renders a message in the person's style: deterministic transforms of case, length, punctuation,
 * typos and politeness, applied only outside {@link keep} marks, which are then removed.
 */
export function renderStyled(text: string, style: Style, rng: Rng, opening = false): string {
  let out = text;
  if (style.politeness === "curt") out = curt(out);
  if (style.politeness === "polite" && opening)
    out = `${/^\s*(hi|hello|hey)\b/i.test(out) ? "" : "Hello! "}${out} Thank you.`;
  if (style.length === "clipped") out = clip(out);
  if (style.length === "run_on") out = runOn(out);
  // Sparse punctuation keeps the stop or comma that ends a kept value before more words: "with
  // company name Indigo Company no more waiting" would make the words after it part of the name.
  if (style.punctuation === "sparse")
    out = outside(out, (s) =>
      s.replace(/[.,](?=\s|$)/g, (mark, at: number) => (at === 0 && /^.\s+\S/.test(s) ? mark : "")),
    );
  if (style.punctuation === "emphatic")
    out = outside(out, (s) =>
      s
        .replace(/!/g, "!!")
        .replace(/\?/g, "??")
        .replace(/\.(?=\s*$)/, "!"),
    );
  if (style.typos)
    out = outside(out, (s) =>
      s.replace(/\b[A-Za-z]{5,}\b/g, (word) => (rng.chance(0.12) ? swapInner(word, rng) : word)),
    );
  if (style.case === "lowercase") out = outside(out, (s) => s.toLowerCase());
  out = out
    .replace(/[\uE000\uE001]/g, "")
    .replace(/\s{2,}/g, " ")
    .replace(/\s+([,.!?])/g, "$1")
    .replace(/^[,\s]+|[,\s]+$/g, "")
    .trim();
  return out.length > 0 ? out : text.replace(/[\uE000\uE001]/g, "");
}

/** Applies a transform to the text outside protected marks only. */
function outside(text: string, transform: (s: string) => string): string {
  if (!text.includes("\uE000")) return transform(text);
  let out = "";
  let last = 0;
  for (const match of text.matchAll(PROTECTED)) {
    out += transform(text.slice(last, match.index)) + match[0];
    last = (match.index as number) + match[0].length;
  }
  return out + transform(text.slice(last));
}

/** Keeps the sentences that carry something (a protected value, a question, a request), at most two. */
function clip(text: string): string {
  const sentences = text.split(/(?<=[.!?])\s+/);
  const carrying = sentences.filter(
    (s) => s.includes("\uE000") || /\?|\b(want|need|can you|could you|please|yes|no)\b/i.test(s),
  );
  const kept = (carrying.length > 0 ? carrying : sentences).slice(0, 2);
  return kept.join(" ").replace(/^(hello|hi|hey)[!,.]?\s*/i, "");
}

/** Joins sentences with commas and "and", the way a breathless message reads. */
function runOn(text: string): string {
  const sentences = text.split(/(?<=[.!])\s+/);
  if (sentences.length < 2) return text;
  return sentences
    .map((s, i) => (i < sentences.length - 1 ? s.replace(/[.!]$/, "") : s))
    .map((s, i) => (i === 0 ? s : s.charAt(0).toLowerCase() + s.slice(1)))
    .join(sentences.length > 2 ? ", and " : " and ");
}

function swapInner(word: string, rng: Rng): string {
  const i = 1 + rng.int(word.length - 3);
  return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
}
