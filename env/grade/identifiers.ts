import type { Agent } from "../agent.ts";
import type { IdFormat, IdMatch } from "../world/ids.ts";
import { WorldModel } from "../world/model.ts";

/**
 * An email address in text. The repeats are bounded (a local part of at most 64 characters, labels
 * of at most 63, at most 9 of them, as RFC 5321 allows) and a match starts only where a local part
 * can, so a long run of word characters costs linear time instead of quadratic.
 */
export const EMAIL = /(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}/g;

/** Finds the identifiers of a spec's records (by their id shapes) and email addresses in text. */
export class IdentifierReader {
  readonly #formats: IdFormat[];

  constructor(agent: Agent) {
    this.#formats = [...WorldModel.of(agent).entities.values()].map((e) => e.idFormat);
  }

  /** Every identifier and email in the text, in order of appearance, without repeats. */
  read(text: string): string[] {
    return this.locate(text).map((m) => m.value);
  }

  /** Every identifier and email in the text with where it first appears, in order of appearance. */
  locate(text: string): IdMatch[] {
    const first = new Map<string, number>();
    const found = [
      ...this.#formats.flatMap((f) => f.locate(text)),
      ...[...text.matchAll(EMAIL)].map((m) => ({ value: m[0], at: m.index })),
    ];
    for (const { value, at } of found) {
      const earlier = first.get(value);
      if (earlier === undefined || at < earlier) first.set(value, at);
    }
    return [...first].map(([value, at]) => ({ value, at })).sort((a, b) => a.at - b.at);
  }
}
