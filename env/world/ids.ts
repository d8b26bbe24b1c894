import type { Rng } from "../rng.ts";
import { digits } from "./values.ts";

/** Makes identifiers of one entity, all of one recognisable shape. */
export interface IdFormat {
  make(rng: Rng): string;
  /** Finds identifiers of this shape in text (global, so use with matchAll). */
  match: RegExp;
  /** Where the shape came from: an example in a parameter description, a schema pattern, or the default. */
  source: "example" | "pattern" | "default";
}

const EXAMPLE =
  /(?:such as|e\.g\.,?|for example,?|for instance,?|like|example:)\s*[`"']?([A-Za-z0-9][A-Za-z0-9_-]{2,30}[A-Za-z0-9])/i;

/**
 * The id shape of an entity: copied from an example in a parameter description ("such as W2378156":
 * letters kept, digits drawn), else generated from the schema's pattern, else `ORD-482913` style.
 * Whatever the source, an id must pass the parameter's own pattern, or the world would refuse ids it made.
 */
export function idFormat(
  entity: string,
  descriptions: string[],
  patterns: string[],
  prefix = defaultPrefix(entity),
): IdFormat {
  const checks = patterns.flatMap((p) => {
    try {
      return [new RegExp(p, "u")];
    } catch {
      return [];
    }
  });
  const fits = (id: string) => checks.every((re) => re.test(id));
  for (const description of descriptions) {
    const example = EXAMPLE.exec(description)?.[1];
    if (example && /\d/.test(example) && fits(example)) {
      const shape = example
        .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
        .replace(/\d+/g, (run) => `\\d{${run.length}}`);
      return {
        source: "example",
        make: (rng) => example.replace(/\d/g, () => digits(rng, 1)),
        match: new RegExp(`\\b${shape}\\b`, "g"),
      };
    }
  }
  for (const pattern of patterns) {
    const generate = fromPattern(pattern);
    if (generate)
      return {
        source: "pattern",
        make: generate,
        match: new RegExp(pattern.replace(/^\^/, "\\b").replace(/\$$/, "\\b"), "gu"),
      };
  }
  return {
    source: "default",
    make: (rng) => `${prefix}-${digits(rng, 6)}`,
    match: new RegExp(`\\b${prefix}-\\d{6}\\b`, "g"),
  };
}

/** The first three letters of a name, upper case: order → ORD. */
export function defaultPrefix(entity: string): string {
  return (
    entity
      .replace(/[^a-z]/gi, "")
      .slice(0, 3)
      .toUpperCase() || "ID"
  );
}

/** A prefix for an entity that no other entity uses: ORD, else its first letter with two later consonants. */
export function uniquePrefix(entity: string, taken: Set<string>): string {
  const letters = entity.replace(/[^a-z]/gi, "").toUpperCase();
  const candidates = [defaultPrefix(entity)];
  const rest = letters.slice(1).replace(/[AEIOU]/g, "");
  for (let i = 0; i < rest.length; i++)
    for (let j = i + 1; j < rest.length; j++) candidates.push(`${letters[0]}${rest[i]}${rest[j]}`);
  const prefix = candidates.find((c) => !taken.has(c)) ?? `${defaultPrefix(entity)}${taken.size}`;
  taken.add(prefix);
  return prefix;
}

type Piece = { chars: string; min: number; max: number };

/** A generator for strings matching a simple regular expression, or null when it is not simple. */
export function fromPattern(pattern: string): ((rng: Rng) => string) | null {
  const pieces: Piece[] = [];
  let i = 0;
  const source = pattern.replace(/^\^/, "").replace(/\$$/, "");
  while (i < source.length) {
    let chars: string | null = null;
    const c = source[i] as string;
    if (c === "\\") {
      const next = source[i + 1];
      chars =
        next === "d"
          ? "0123456789"
          : next === "w"
            ? "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
            : next === "-" || next === "." || next === "_"
              ? next
              : null;
      i += 2;
    } else if (c === "[") {
      const end = source.indexOf("]", i);
      if (end < 0) return null;
      chars = expandClass(source.slice(i + 1, end));
      i = end + 1;
    } else if (/[A-Za-z0-9_\-:#/ ]/.test(c)) {
      chars = c;
      i++;
    }
    if (chars === null || chars === "") return null;
    const quantifier = /^(\{(\d+)(?:,(\d*))?\}|\?|\+|\*)/.exec(source.slice(i));
    let min = 1;
    let max = 1;
    if (quantifier) {
      i += quantifier[0].length;
      if (quantifier[1]?.startsWith("{")) {
        min = Number(quantifier[2]);
        max =
          quantifier[3] === undefined
            ? min
            : quantifier[3] === ""
              ? min + 4
              : Number(quantifier[3]);
      } else if (quantifier[0] === "?") [min, max] = [0, 1];
      else if (quantifier[0] === "+") [min, max] = [1, 6];
      else [min, max] = [0, 6];
    }
    pieces.push({ chars, min, max });
  }
  if (pieces.length === 0) return null;
  return (rng) => {
    let out = "";
    for (const piece of pieces) {
      const n =
        piece.min === piece.max
          ? piece.min
          : Math.max(
              piece.min,
              Math.min(piece.max, piece.min + 1 + rng.int(piece.max - piece.min)),
            );
      for (let k = 0; k < n; k++) out += piece.chars[rng.int(piece.chars.length)];
    }
    return out;
  };
}

function expandClass(body: string): string | null {
  if (body.startsWith("^")) return null;
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c === "\\" && body[i + 1] === "d") {
      out += "0123456789";
      i++;
    } else if (body[i + 1] === "-" && i + 2 < body.length) {
      const from = c.charCodeAt(0);
      const to = (body[i + 2] as string).charCodeAt(0);
      for (let code = from; code <= to; code++) out += String.fromCharCode(code);
      i += 2;
    } else out += c;
  }
  return out;
}
