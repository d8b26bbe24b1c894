import type { Agent } from "../agent.ts";
import type { IdFormat, IdMatch } from "../world/ids.ts";
import { WorldModel } from "../world/model.ts";

/**
 * An email address in text. The repeats are bounded (a local part of at most 64 characters, labels
 * of at most 63, at most 9 of them, as RFC 5321 allows) and a match starts only where a local part
 * can, so a long run of word characters costs linear time instead of quadratic.
 */
export const EMAIL = /(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}/g;

/** Texts remembered per reader: a row's messages are read by several checks in turn. */
const REMEMBERED = 4_096;

/** Finds the identifiers of a spec's records (by their id shapes) and email addresses in text. */
export class IdentifierReader {
  static readonly #byAgent = new WeakMap<Agent, IdentifierReader>();
  readonly #formats: IdFormat[];
  readonly #seen = new Map<string, readonly IdMatch[]>();

  constructor(agent: Agent) {
    this.#formats = [...WorldModel.of(agent).entities.values()].map((e) => e.idFormat);
  }

  /** The reader of an agent's spec, made once: every check of every row shares what it read. */
  static of(agent: Agent): IdentifierReader {
    let reader = IdentifierReader.#byAgent.get(agent);
    if (!reader) {
      reader = new IdentifierReader(agent);
      IdentifierReader.#byAgent.set(agent, reader);
    }
    return reader;
  }

  /** Every identifier and email in the text, in order of appearance, without repeats. */
  read(text: string): string[] {
    return this.locate(text).map((m) => m.value);
  }

  /** Every identifier and email in the text with where it first appears, in order of appearance. */
  locate(text: string): readonly IdMatch[] {
    const known = this.#seen.get(text);
    if (known) return known;
    const first = new Map<string, number>();
    const found = this.#formats.flatMap((f) => f.locate(text));
    if (text.includes("@"))
      for (const m of text.matchAll(EMAIL)) found.push({ value: m[0], at: m.index });
    for (const { value, at } of found) {
      const earlier = first.get(value);
      if (earlier === undefined || at < earlier) first.set(value, at);
    }
    const located = [...first].map(([value, at]) => ({ value, at })).sort((a, b) => a.at - b.at);
    if (this.#seen.size >= REMEMBERED) this.#seen.clear();
    this.#seen.set(text, located);
    return located;
  }
}

/**
 * The texts a conversation has shown so far, asked whether a value appeared in one as a whole
 * token. Looking a few values up in what was said is far cheaper than reading every identifier
 * out of every long tool answer.
 */
export class SaidSoFar {
  readonly #texts: string[] = [];

  /** Whatever this text says now counts as said. */
  add(text: string): void {
    if (text !== "") this.#texts.push(text.toLowerCase());
  }

  /** Whether any text so far holds the value (any case), not as part of a longer token. */
  has(value: string): boolean {
    const wanted = value.toLowerCase();
    return this.#texts.some((text) => holdsToken(text, wanted));
  }
}

const TOKEN_CHAR = /[\p{L}\p{N}_]/u;

function holdsToken(text: string, value: string): boolean {
  for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) {
    const before = text[at - 1];
    const after = text[at + value.length];
    if (
      (before === undefined || !TOKEN_CHAR.test(before)) &&
      (after === undefined || !TOKEN_CHAR.test(after))
    )
      return true;
  }
  return false;
}
