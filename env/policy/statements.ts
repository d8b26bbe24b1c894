import { isVerb } from "../tools.ts";
import { stillWorking } from "../util/long-work.ts";

/** Verbs a rule starts with when it tells the agent what to do ("Verify the caller…", "Never promise…"). */
const IMPERATIVES = new Set([
  "accept",
  "add",
  "advise",
  "allow",
  "answer",
  "apologise",
  "apologize",
  "apply",
  "ask",
  "authenticate",
  "avoid",
  "be",
  "begin",
  "book",
  "call",
  "cancel",
  "change",
  "charge",
  "check",
  "clarify",
  "collect",
  "confirm",
  "connect",
  "consider",
  "continue",
  "decline",
  "deny",
  "direct",
  "disclose",
  "discuss",
  "double-check",
  "end",
  "ensure",
  "escalate",
  "explain",
  "find",
  "follow",
  "gather",
  "get",
  "give",
  "greet",
  "hand",
  "handle",
  "help",
  "identify",
  "include",
  "inform",
  "issue",
  "keep",
  "let",
  "list",
  "locate",
  "log",
  "look",
  "make",
  "mask",
  "mention",
  "modify",
  "note",
  "notify",
  "obtain",
  "offer",
  "pass",
  "process",
  "proceed",
  "promise",
  "provide",
  "quote",
  "read",
  "recommend",
  "record",
  "redact",
  "refer",
  "refund",
  "refuse",
  "reject",
  "remind",
  "repeat",
  "reply",
  "request",
  "require",
  "respond",
  "retry",
  "return",
  "reveal",
  "route",
  "say",
  "schedule",
  "search",
  "send",
  "set",
  "share",
  "speak",
  "state",
  "stop",
  "submit",
  "suggest",
  "summarise",
  "summarize",
  "take",
  "talk",
  "tell",
  "transfer",
  "treat",
  "try",
  "update",
  "use",
  "validate",
  "verify",
  "wait",
  "warn",
  "waive",
]);

/** Words that make a sentence an obligation, a prohibition or a limit. */
const DEONTIC =
  /\b(must|mustn'?t|should|shouldn'?t|shall|need to|needs to|have to|has to|required|requires|require|may not|may only|can only|cannot|can'?t|not allowed|not permitted|is allowed only|are allowed only|never|always|do not|don'?t|make sure|ensure|under no circumstances|it is forbidden|prohibited|only (if|when|after|before|once|for|to|with|within|on|in)|no (\w+ )?(is|are) to be|needs? (a|an|the|their|your)|only\b[^.]{0,60}?\b(can|may)( not)? be)\b/i;
/** Openers of a condition ("If the order shipped, …"): the rule is in the clause after. */
const CONDITION = /^(if|when|whenever|once|before|after|unless|for|in case|while|where)\b/i;
/** Words a sentence may open with before its verb: "Always verify…", "Please ask…". */
const ADVERBS =
  /^(please|always|never|also|then|first|next|finally|only|politely|immediately|kindly)\s+/i;

/**
 * Whether a sentence of a policy tells the agent what to do (a rule) or describes the business (a
 * statement of fact: "Our store sells 50 products", "Each order can be pending or delivered").
 * A rule obliges, forbids or limits ("must", "never", "only if"), or is an imperative ("Verify
 * the caller…", "If the card is lost, freeze it").
 */
export function isRule(sentence: string): boolean {
  const s = sentence.replace(/^[^\p{L}\d]+/u, "").trim();
  if (s === "") return false;
  if (DEONTIC.test(s)) return true;
  if (imperative(s)) return true;
  if (CONDITION.test(s)) {
    const comma = s.indexOf(",");
    if (comma > 0 && imperative(s.slice(comma + 1).trim())) return true;
  }
  // "Transfer to a human: when the customer asks" — a bullet naming an action before a colon.
  const colon = s.indexOf(":");
  return colon > 0 && imperative(s.slice(0, colon));
}

function imperative(clause: string): boolean {
  const first = clause
    .replace(ADVERBS, "")
    .replace(ADVERBS, "")
    .toLowerCase()
    .match(/^[a-z-]+/)?.[0];
  return first !== undefined && (IMPERATIVES.has(first) || isVerb(first));
}

/** Text compared for sameness: lower case, words only. */
export function normalised(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\d]+/gu, " ")
    .trim();
}

const FILLER = new Set([
  "a",
  "an",
  "the",
  "to",
  "of",
  "and",
  "or",
  "is",
  "are",
  "be",
  "you",
  "your",
  "their",
  "any",
  "that",
  "this",
  "it",
  "for",
  "in",
  "on",
  "with",
  "always",
  "must",
  "should",
  "please",
]);

/** The words that carry a sentence's meaning, for comparing two rules. */
export function contentWords(text: string): Set<string> {
  return new Set(
    normalised(text)
      .split(" ")
      .filter((w) => w.length > 1 && !FILLER.has(w))
      .map((w) => w.replace(/(ies|es|s|ed|ing)$/, "")),
  );
}

/** Whether two rules say the same thing: the same words, or nearly all of them (Jaccard ≥ 0.8). */
export function sameRule(a: Set<string>, b: Set<string>): boolean {
  if (a.size === 0 || b.size === 0) return false;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared) >= 0.8;
}

/** Kept rules a new one is compared with, at most: past it, a near-twin may go unnoticed, never the time. */
const MOST_COMPARED = 256;

/**
 * The rules kept so far, found again by their words, so a policy of thousands of rules is not
 * compared pair by pair. Two rules sharing 80% of their words (see {@link sameRule}) share one of
 * the first few of each one's words taken rarest first (the prefix filter of set-similarity joins),
 * so each rule is filed under those few words only and compared only with the rules filed under
 * its own, earliest first.
 */
export class KeptRules {
  /** How many passages each word appears in: rarer words come first in a rule's prefix. */
  readonly #frequency: ReadonlyMap<string, number>;
  readonly #byWord = new Map<string, number[]>();
  readonly #kept: { words: Set<string>; id: string }[] = [];

  /** @param passages The words of every passage the rules come from, to rank words by rarity. */
  constructor(passages: Iterable<Set<string>>) {
    const frequency = new Map<string, number>();
    for (const words of passages)
      for (const word of words) frequency.set(word, (frequency.get(word) ?? 0) + 1);
    this.#frequency = frequency;
  }

  /** The first words of a rule, rarest first, that any rule it is near must share one of. */
  #prefix(words: Set<string>): string[] {
    const ranked = [...words].sort(
      (a, b) =>
        (this.#frequency.get(a) ?? 0) - (this.#frequency.get(b) ?? 0) ||
        (a < b ? -1 : a > b ? 1 : 0),
    );
    // Jaccard 0.8 of sets of size s needs ceil(4s/5) shared words: one is among the first s - that + 1.
    return ranked.slice(0, words.size - Math.ceil((4 * words.size) / 5) + 1);
  }

  /** The id of the earliest kept rule that says what these words say, if one does. */
  twin(words: Set<string>): string | undefined {
    stillWorking("reading the policy's rules");
    if (words.size === 0) return undefined;
    const filed = this.#prefix(words).map((word) => this.#byWord.get(word) ?? []);
    for (const at of earliest(filed, MOST_COMPARED)) {
      const kept = this.#kept[at] as { words: Set<string>; id: string };
      if (sameRule(kept.words, words)) return kept.id;
    }
    return undefined;
  }

  /** Keeps a rule, to be found by the rules after it. */
  keep(words: Set<string>, id: string): void {
    const at = this.#kept.length;
    this.#kept.push({ words, id });
    if (words.size === 0) return;
    for (const word of this.#prefix(words)) {
      const filed = this.#byWord.get(word);
      if (filed) filed.push(at);
      else this.#byWord.set(word, [at]);
    }
  }
}

/**
 * The `most` smallest numbers found in any of the ascending lists, each once, smallest first: the
 * lists merged only as far as that. Collecting every candidate first made a policy of thousands of
 * rules in few words quadratic, each rule's lists holding most of the rules before it.
 */
function* earliest(lists: readonly (readonly number[])[], most: number): Generator<number> {
  const next = lists.map(() => 0);
  let last = -1;
  for (let given = 0; given < most; ) {
    let best = -1;
    let from = -1;
    for (let l = 0; l < lists.length; l++) {
      const list = lists[l] as readonly number[];
      let at = next[l] as number;
      while (at < list.length && (list[at] as number) <= last) at++;
      next[l] = at;
      if (at < list.length && (best === -1 || (list[at] as number) < best)) {
        best = list[at] as number;
        from = l;
      }
    }
    if (from === -1) return;
    last = best;
    given++;
    yield best;
  }
}
