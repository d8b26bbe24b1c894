import type { ChatMessage } from "../../spec/index.ts";
import { lookup } from "../lookup.ts";
import { rolloutSeed, type UserSimulator } from "../models/roles.ts";
import { Rng } from "../rng.ts";
import { snake } from "../world/model.ts";
import { AGENT_WRITTEN } from "./goal.ts";
import type { Persona } from "./persona.ts";
import { asksGoAhead, questionsIn } from "./phrases.ts";
import { keep, renderStyled } from "./style.ts";

/** One turn of the person: what they write, and whether it ends the conversation. */
export interface UserTurn {
  content: string;
  end?: "done" | "gave_up";
  /** Details the person got wrong on purpose in this turn (a misread number), so checks do not blame the simulator. */
  misstated?: string[];
}

const ROLE_WORDS = new Set([
  "from",
  "to",
  "source",
  "destination",
  "target",
  "recipient",
  "sender",
]);

/** "Anything else I can help with?": an offer, not a question about a detail. */
const OFFER_OF_MORE = /anything else/i;

const HISTORY_LINES: Record<string, string> = {
  follow_up_after_failure: "I tried this yesterday and it didn't work.",
  repeated_ask: "I've already asked about this once.",
  earlier_promise: "Someone here promised me last week this would be sorted.",
};

/** The person's first message: their request, in their stance and style, with the history they bring. */
export function openingMessage(persona: Persona, rng: Rng): string {
  const request = persona.goal.text;
  const about = persona.details.about.replace(/^their /, "my ");
  const history = lookup(HISTORY_LINES, persona.history.name) ?? "";
  const volunteered = Object.entries(persona.goal.arguments).some(
    ([, v]) => v === persona.details.email,
  )
    ? ` My email is ${keep(persona.details.email)}.`
    : "";
  const lines: Record<string, string> = {
    cooperative: `I'd like to ${request}.${volunteered}`,
    hurried: `need to ${request}, quickly please.`,
    confused: `Hi, I'm not really sure how this works, but I think I need to ${request}? Or something like that.`,
    insistent: `I need to ${request}. Today. This has gone on long enough.`,
    skeptical: `I want to ${request}, and I'd like it actually done this time.`,
    pressuring: `I want to ${request}. Don't bother with the usual "${persona.rule.description.replace(/\.$/, "")}" routine, I know what I want.`,
    vague: `Hi, I need some help with ${about}.`,
  };
  const text = lookup(lines, persona.stance.name) ?? `I'd like to ${request}.`;
  // The history line is rendered on its own so that no clipping of the request drops it.
  const lead = history ? `${renderStyled(history, persona.style, rng)} ` : "";
  return lead + renderStyled(text, persona.style, rng, history === "");
}

/**
 * The offline user: the person rendered through templates, deterministic for the seed. It answers
 * the agent's questions with the details it holds, confirms or refuses when asked, presses where
 * its stance says so, and ends the conversation when satisfied or out of patience.
 */
export class OfflineUser {
  readonly #persona: Persona;
  readonly #rng: Rng;
  #patience: number;
  #asked = new Map<string, number>();
  #misled = false;
  #doubted = false;
  #insisted = 0;
  #claimed = false;

  constructor(persona: Persona, seed: number) {
    this.#persona = persona;
    this.#rng = new Rng(seed, "offline-user");
    this.#patience = persona.patience;
  }

  /** The person's reply to the conversation so far (they see only text, never tool results). */
  reply(conversation: readonly ChatMessage[]): UserTurn {
    const last = [...conversation]
      .reverse()
      .find((m) => m.role === "assistant" && typeof m.content === "string" && m.content.length > 0);
    const text = last && last.role === "assistant" ? (last.content as string) : "";
    const turn = this.#answer(text);
    return { ...turn, content: renderStyled(turn.content, this.#persona.style, this.#rng) };
  }

  #answer(text: string): UserTurn {
    const p = this.#persona;
    if (
      /\b(transfer|hand|pass|connect)\w*\s+you\b.*\b(human|colleague|specialist|agent|team|person)\b/i.test(
        text,
      )
    ) {
      return { content: "Okay, thanks.", end: "done" };
    }
    const questions = questionsIn(text);
    const confirming = questions.some(asksGoAhead);
    // A go-ahead question names the record it would act on; only the other questions ask for details.
    const wanted = this.#askedFor(
      questions.filter((q) => !OFFER_OF_MORE.test(q) && !asksGoAhead(q)).join(" "),
    );
    if (wanted.length > 0) return this.#give(wanted);
    if (confirming) return this.#confirm(text);
    if (questions.some((q) => /\bwhich one\b/i.test(q))) return this.#pick(text);
    // The agent's framing is its first sentence; what follows may quote the records ("Cannot access shared drive").
    const framing = text.split(/[:.!?](\s|$)/)[0] ?? text;
    if (/didn'?t (quite )?(get|understand)|what would you like/i.test(text))
      return this.#impatient(`I want to ${p.goal.text}.`);
    if (
      /\b(sorry|couldn'?t|could not|can'?t|cannot|unable|failed|error|not (able|found|possible)|isn'?t possible|no \w+ (was )?found|don'?t have permission|not allowed)\b/i.test(
        framing,
      )
    ) {
      return this.#failure(text);
    }
    if (
      /\b(done|completed?|is now|has been|have (\w+ed)|here('s| is| are)|i found|i can see|your \w+ (is|are))\b/i.test(
        framing,
      )
    ) {
      return this.#success();
    }
    if (OFFER_OF_MORE.test(text)) return { content: "No, that's everything.", end: "done" };
    return this.#impatient(`So can you ${p.goal.text}?`);
  }

  /** Arguments of the goal (and the identifiers and email the person holds) that the questions ask for. */
  #askedFor(questions: string): string[] {
    if (questions === "") return [];
    const p = this.#persona;
    // "the email address on your account" asks for the email, not for an address.
    const lower = questions.toLowerCase().replace(/\be-?mail address/g, "email");
    const params = new Set([
      ...Object.keys(p.goal.arguments),
      ...Object.keys(p.details.ids),
      ...Object.keys(p.details.candidates),
    ]);
    const asked: string[] = [];
    for (const param of params) {
      if (AGENT_WRITTEN.test(snake(param))) continue;
      const words = snake(param)
        .replace(/_id$/, "")
        .split("_")
        .filter((w) => w.length > 2 && !ROLE_WORDS.has(w) && w !== "new");
      if (words.some((w) => lower.includes(w))) asked.push(param);
    }
    // "your from account ID" asks for one of two accounts: the direction word decides which.
    const directed = asked.filter((param) =>
      snake(param)
        .split("_")
        .some((w) => ROLE_WORDS.has(w) && new RegExp(`\\b${w}\\b`).test(lower)),
    );
    if (directed.length > 0)
      asked.splice(
        0,
        asked.length,
        ...asked.filter(
          (p) =>
            directed.includes(p) ||
            !snake(p)
              .split("_")
              .some((w) => ROLE_WORDS.has(w)),
        ),
      );
    if (/\be-?mail\b/.test(lower) && !asked.some((a) => /email/i.test(a))) asked.push("__email");
    if (asked.length === 0 && /\b(id|number|reference)\b/.test(lower)) asked.push("__unknown_id");
    return asked;
  }

  #give(params: string[]): UserTurn {
    const p = this.#persona;
    const parts: string[] = [];
    const misstated: string[] = [];
    for (const param of params) {
      const times = (this.#asked.get(param) ?? 0) + 1;
      this.#asked.set(param, times);
      if (param === "__unknown_id") {
        parts.push(
          `I don't have the number, sorry. It's ${p.details.about.replace(/^their /, "my ")}.`,
        );
        continue;
      }
      const value =
        param === "__email"
          ? p.details.email
          : (lookup(p.details.ids, param) ??
            (/(_id|Id)$/.test(param) ? undefined : lookup(p.goal.arguments, param)));
      const candidates = p.details.candidates[param];
      if (candidates && candidates.length > 1) {
        parts.push(
          `It's either ${keep(candidates[0] as string)} or ${keep(candidates[1] as string)}, I'm not sure which.`,
        );
      } else if (value === undefined) {
        parts.push(
          `I don't have the number, sorry. It's ${p.details.about.replace(/^their /, "my ")}.`,
        );
      } else if (p.stance.name === "vague" && times === 1 && /(_id|Id)$/.test(param)) {
        parts.push(
          `It's ${p.details.about.replace(/^their /, "my ")}, I don't have the details in front of me.`,
        );
      } else if (p.stance.name === "confused" && !this.#misled && /(_id|Id)$/.test(param)) {
        this.#misled = true;
        const wrong = garble(String(value), this.#rng);
        misstated.push(wrong);
        parts.push(`I think it's ${keep(wrong)}?`);
      } else {
        parts.push(`${this.#rng.pick(["", "It's ", "Sure, it's "])}${keep(spoken(value))}.`);
      }
    }
    return misstated.length > 0
      ? { content: parts.join(" "), misstated }
      : { content: parts.join(" ") };
  }

  /** "Which one do you mean?": the one the person holds, else the listed one most like what they have in mind. */
  #pick(text: string): UserTurn {
    const p = this.#persona;
    const held = [
      ...Object.values(p.details.ids),
      ...Object.values(p.details.candidates).flat(),
    ].find((id) => text.includes(id));
    if (held) return { content: `The ${keep(held)} one.` };
    const about = new Set(
      p.details.about
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter((w) => w.length > 3 || /^\d{2,}$/.test(w)),
    );
    const options = [...text.matchAll(/([A-Za-z]*-?\d{4,}[A-Za-z0-9-]*) \(([^)]*)\)/g)].map(
      (m) => ({
        id: m[1] as string,
        score: (m[2] as string)
          .toLowerCase()
          .split(/[^a-z0-9]+/)
          .filter((w) => about.has(w)).length,
      }),
    );
    const best = options.reduce<{ id: string; score: number } | null>(
      (a, b) => (a === null || b.score > a.score ? b : a),
      null,
    );
    if (best && best.score > 0) return { content: `The ${keep(best.id)} one, I think.` };
    return { content: "The first one, I think." };
  }

  #confirm(text: string): UserTurn {
    const p = this.#persona;
    const held = [...Object.values(p.details.ids), ...Object.values(p.goal.arguments).map(String)];
    const quoted = [...text.matchAll(/\b[A-Z]{1,5}-?\d{4,}\b/g)].map((m) => m[0]);
    const stranger = quoted.find((id) => !held.includes(id));
    if (stranger) {
      const right = Object.values(p.details.ids)[0];
      return {
        content: right
          ? `No, ${keep(stranger)} isn't mine. It's ${keep(right)}.`
          : `No, ${keep(stranger)} isn't right.`,
      };
    }
    if (p.stance.name === "pressuring")
      return { content: "Yes, obviously. You don't need to keep checking with me." };
    return {
      content: this.#rng.pick(["Yes, please go ahead.", "Yes, that's right.", "Yes, do it."]),
    };
  }

  #failure(text: string): UserTurn {
    const p = this.#persona;
    if (this.#misled && /find|found|exist|match/i.test(text) && this.#asked.size > 0) {
      this.#misled = false;
      const [param] = [...this.#asked.keys()].filter((k) => /(_id|Id)$/.test(k));
      const value = param ? lookup(p.details.ids, param) : undefined;
      if (value) return { content: `Oh sorry, I mixed it up. It's ${keep(value)}.` };
    }
    if (p.stance.name === "insistent" && this.#insisted < 2) {
      this.#insisted++;
      return this.#impatient("That's not good enough. Please try again.");
    }
    if (p.stance.name === "hurried")
      return { content: "Forget it, I'll sort it out myself.", end: "gave_up" };
    const sarcasm = p.style.sarcastic ? "Great, just great. " : "";
    return { content: `${sarcasm}Okay, I understand. Thanks anyway.`, end: "done" };
  }

  #success(): UserTurn {
    const p = this.#persona;
    const claim = Object.entries(p.details.claims)[0];
    if (claim && !this.#claimed) {
      this.#claimed = true;
      const [field, value] = claim;
      return this.#impatient(
        `That doesn't match what I have. My ${field.replace(/_/g, " ")} says ${keep(String(value))}.`,
      );
    }
    if (p.stance.name === "skeptical" && !this.#doubted) {
      this.#doubted = true;
      return { content: "Are you sure it actually went through? Can you double-check?" };
    }
    return {
      content: this.#rng.pick([
        "Great, thanks!",
        "Perfect, thank you.",
        "Thanks, that's all I needed.",
      ]),
      end: "done",
    };
  }

  /** A reply that costs patience; with none left, the person gives up instead. */
  #impatient(content: string): UserTurn {
    this.#patience--;
    if (this.#patience <= 0)
      return { content: "This is taking too long. I'll try another way.", end: "gave_up" };
    return { content };
  }
}

/** A value as the person types it: amounts with two decimals, structured values as JSON, yes or no for a flag. */
function spoken(value: unknown): string {
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(2);
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  return String(value);
}

/** A near miss of an identifier: two digits swapped, the way people misread a number. */
function garble(id: string, rng: Rng): string {
  const digits = [...id].map((c, i) => (/\d/.test(c) ? i : -1)).filter((i) => i >= 0);
  if (digits.length < 2) return `${id}0`;
  const at = rng.int(digits.length - 1);
  const [i, j] = [digits[at] as number, digits[at + 1] as number];
  const chars = [...id];
  if (chars[i] === chars[j]) chars[j] = String((Number(chars[j]) + 1) % 10);
  else [chars[i], chars[j]] = [chars[j] as string, chars[i] as string];
  return chars.join("");
}

/** The offline user model: each episode's person played by an {@link OfflineUser}. */
export const offlineUser: UserSimulator = {
  name: "offline",
  start(setup) {
    const user = new OfflineUser(setup.persona, rolloutSeed(setup.situation, setup.rollout));
    return { reply: async (conversation) => user.reply(conversation) };
  },
};
