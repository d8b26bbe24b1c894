import type { Agent } from "../agent.ts";
import { WorldModel } from "../world/model.ts";

const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;

/** Finds the identifiers of a spec's records (by their id shapes) and email addresses in text. */
export class IdentifierReader {
  readonly #patterns: RegExp[];

  constructor(agent: Agent) {
    const model = WorldModel.of(agent);
    this.#patterns = [...model.entities.values()].map(
      (e) => new RegExp(e.idFormat.match.source, e.idFormat.match.flags),
    );
  }

  /** Every identifier and email in the text, in order of appearance, without repeats. */
  read(text: string): string[] {
    const found: { at: number; value: string }[] = [];
    for (const pattern of [...this.#patterns, EMAIL]) {
      for (const m of text.matchAll(
        new RegExp(
          pattern.source,
          pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`,
        ),
      )) {
        found.push({ at: m.index ?? 0, value: m[0].replace(/\.$/, "") });
      }
    }
    return [...new Set(found.sort((a, b) => a.at - b.at).map((f) => f.value))];
  }
}
