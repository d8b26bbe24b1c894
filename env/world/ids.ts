import type { Rng } from "../rng.ts";
import { SpecError } from "../util/errors.ts";
import { regexLiteral } from "../util/regex.ts";
import { fromPattern } from "./pattern.ts";
import { digits, uuid } from "./values.ts";

/** What a parameter that names a record says about the identifier's shape. */
export interface IdParameter {
  description?: string;
  pattern?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
}

/** An identifier found in text, and the index it starts at. */
export interface IdMatch {
  value: string;
  at: number;
}

/** Makes identifiers of one entity, all of one recognisable shape, and finds them in text. */
export interface IdFormat {
  make(rng: Rng): string;
  /** Identifiers of this shape in text, in order; digits that belong to an amount ("289.20") are not ids. */
  find(text: string): string[];
  /** The same identifiers with where each starts, so callers need not search for them again. */
  locate(text: string): IdMatch[];
  /** Where the shape came from. */
  source: "example" | "pattern" | "integer" | "uuid" | "enum" | "default";
  /** The whole set of ids when the schema lists them (`plan_code` with an enum): the records are those, and no more. */
  values?: readonly string[];
  /** For a closed set: an id outside it, for what does not exist (a plan the person misremembers). */
  outside?: (rng: Rng) => string;
  /** Whether the parameters take the id as a number (`type: integer`), not a string. */
  numeric: boolean;
}

/** An example in a description: "such as W2378156", "e.g. '#W0000000'", "e.g. ACC 4410 2231". */
const EXAMPLE =
  /(?:such as|e\.g\.,?|for example,?|for instance,?|like|example:|format:?)\s*[`"']?(#?[A-Za-z0-9][A-Za-z0-9_-]{1,30}[A-Za-z0-9](?: [A-Z0-9]{0,8}\d[A-Z0-9]{0,8}){0,3})/i;
/** Fewest digits an identifier gets, so that a world has room for thousands of distinct ones. */
const MIN_DIGITS = 4;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

/**
 * The id shape of an entity, from the parameters that name its records: a UUID or an integer when
 * the schema says so; else the example in a description ("such as W2378156": letters kept, digits
 * drawn, short digit runs widened); else the schema's pattern; else `ORD-482913`. Whatever the
 * source, an id must pass every parameter's pattern, or the world would refuse ids it made.
 */
export function idFormat(
  entity: string,
  params: IdParameter[],
  prefix = defaultPrefix(entity),
): IdFormat {
  const patterns = params.flatMap((p) => (p.pattern ? [p.pattern] : []));
  const checks = patterns.flatMap((p) => {
    try {
      return [new RegExp(p, "u")];
    } catch {
      return [];
    }
  });
  const fits = (id: string) => checks.every((re) => re.test(id));
  const types = params.flatMap((p) => (Array.isArray(p.type) ? p.type : p.type ? [p.type] : []));
  const listed = params.find((p) => Array.isArray(p.enum) && p.enum.length > 0)?.enum;
  if (listed) {
    const values = [...new Set(listed.map(String))];
    const pattern = new RegExp(
      `(?<![\\w#])(?:${values
        .map(regexLiteral)
        .sort((a, b) => b.length - a.length)
        .join("|")})(?![\\w])`,
      "g",
    );
    return withFind({
      source: "enum",
      numeric: false,
      values,
      make: (rng) => values[rng.int(values.length)] as string,
      outside: (rng) => `${prefix}_${digits(rng, 4)}`,
      locate: (text) => [...text.matchAll(pattern)].map((m) => ({ value: m[0], at: m.index })),
    });
  }
  if (params.some((p) => p.format === "uuid")) {
    return withFind({
      source: "uuid",
      numeric: false,
      make: uuid,
      locate: (text) => [...text.matchAll(UUID)].map((m) => ({ value: m[0], at: m.index })),
    });
  }
  if (types.includes("integer") || types.includes("number")) {
    return withFind({
      source: "integer",
      numeric: true,
      make: (rng) => `${1 + rng.int(9)}${digits(rng, 5)}`,
      locate: finder(/\b\d{6}\b/g),
    });
  }
  for (const param of params) {
    const example = EXAMPLE.exec(param.description ?? "")?.[1];
    if (!example || !/\d/.test(example)) continue;
    const widened = widen(example);
    if (!fits(widened)) continue;
    const shape = regexLiteral(widened).replace(/\d+/g, (run) => `\\d{${run.length}}`);
    return withFind({
      source: "example",
      numeric: false,
      make: (rng) => widened.replace(/\d/g, () => digits(rng, 1)),
      locate: finder(new RegExp(`(?<![\\w#-])${shape}(?![\\w-])`, "g")),
    });
  }
  for (const pattern of patterns) {
    const generator = fromPattern(pattern);
    if (!generator) continue;
    // An id is a whole token: "T86" is not a therapist's id inside the slot "SL-2245-T86".
    const match = new RegExp(
      `(?<![\\w-])(?:${pattern.replace(/^\^/, "").replace(/\$$/, "")})(?![\\w-])`,
      "gu",
    );
    return withFind({
      source: "pattern",
      numeric: false,
      make: generator.make,
      locate: finder(match, generator.minLength),
    });
  }
  return withFind({
    source: "default",
    numeric: false,
    make: (rng) => `${prefix}-${digits(rng, 6)}`,
    locate: finder(new RegExp(`(?<![\\w-])${prefix}-\\d{6}(?![\\w-])`, "g")),
  });
}

function withFind(format: Omit<IdFormat, "find">): IdFormat {
  return { ...format, find: (text) => format.locate(text).map((m) => m.value) };
}

/** An example with too few digits for a world ("ORD1") gets its last digit run widened ("ORD1234"). */
function widen(example: string): string {
  const total = (example.match(/\d/g) ?? []).length;
  if (total >= MIN_DIGITS) return example;
  const runs = [...example.matchAll(/\d+/g)];
  const last = runs.at(-1) as RegExpExecArray;
  const at = (last.index ?? 0) + last[0].length;
  return example.slice(0, at) + "0".repeat(MIN_DIGITS - total) + example.slice(at);
}

/** Matches of a shape that are long enough and not the digits of an amount or a decimal. */
function finder(match: RegExp, minLength = 0): (text: string) => IdMatch[] {
  return (text) =>
    [...text.matchAll(match)]
      .filter((m) => {
        const at = m.index;
        const before = text.slice(Math.max(0, at - 2), at);
        const after = text.slice(at + m[0].length, at + m[0].length + 2);
        return m[0].length >= minLength && !/\d[.,]$/.test(before) && !/^[.,]\d/.test(after);
      })
      .map((m) => ({ value: m[0], at: m.index }));
}

/** Identifiers a shape can make before the world gives up looking for an unused one. */
const ATTEMPTS = 10_000;

/**
 * A new identifier that `taken` does not hold. A shape with room for too few identifiers (a
 * pattern such as `^[0-9]$`) is refused, naming the entity, instead of searching forever.
 */
export function uniqueId(
  format: IdFormat,
  rng: Rng,
  taken: (id: string) => boolean,
  entity: string,
): string {
  if (format.values) {
    const free = format.values.filter((v) => !taken(v));
    if (free.length > 0) return free[rng.int(free.length)] as string;
    for (let attempt = 0; format.outside && attempt < ATTEMPTS; attempt++) {
      const id = format.outside(rng);
      if (!taken(id)) return id;
    }
  }
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const id = format.make(rng);
    if (!taken(id)) return id;
  }
  throw new SpecError("agent spec", [
    {
      path: `${entity} identifiers`,
      message: `the ${format.source} that shapes them leaves room for too few distinct ids; give the parameter a longer pattern or example`,
    },
  ]);
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
