import type { Agent } from "../agent.ts";
import type { IdFormat } from "../world/ids.ts";
import { WorldModel } from "../world/model.ts";

const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;

/** Finds the identifiers of a spec's records (by their id shapes) and email addresses in text. */
export class IdentifierReader {
  readonly #formats: IdFormat[];

  constructor(agent: Agent) {
    this.#formats = [...WorldModel.of(agent).entities.values()].map((e) => e.idFormat);
  }

  /** Every identifier and email in the text, in order of appearance, without repeats. */
  read(text: string): string[] {
    const found = [
      ...this.#formats.flatMap((f) => f.find(text)),
      ...[...text.matchAll(EMAIL)].map((m) => m[0].replace(/\.$/, "")),
    ];
    return [...new Set(found)]
      .map((value) => ({ value, at: text.indexOf(value) }))
      .sort((a, b) => a.at - b.at)
      .map((f) => f.value);
  }
}
