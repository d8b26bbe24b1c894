import { Rng } from "../rng.ts";
import { type InputIssue, SpecError } from "../util/errors.ts";
import { regexLiteral, tokenMatches } from "../util/regex.ts";
import { isoDay } from "./dates.ts";
import { digitsDrawn, EXAMPLE } from "./examples.ts";
import { fromPattern, patternCheck } from "./pattern.ts";
import { digits, uuid } from "./values.ts";

/** What a parameter that names a record says about the identifier's shape. */
export interface IdParameter {
  description?: string;
  pattern?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  /** The parameter's own check of a value (its whole schema), when the id must pass it. */
  check?: (value: unknown) => string[];
  /** Where the parameter is in the spec (`tools[0].function.parameters.properties.order_id`). */
  at?: string;
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
  source: "example" | "pattern" | "integer" | "uuid" | "enum" | "format" | "default";
  /** The whole set of ids when the schema lists them (`plan_code` with an enum): the records are those, and no more. */
  values?: readonly string[];
  /** For a closed set: an id outside it, for what does not exist (a plan the person misremembers). */
  outside?: (rng: Rng) => string;
  /** Whether the parameters take the id as a number (`type: integer`), not a string. */
  numeric: boolean;
  /**
   * Why no shape the world knows makes ids every parameter accepts, when none does: an id this
   * shape made, and what a parameter said of it. Absent when the ids fit.
   */
  unfit?: string;
}

/** Fewest digits an identifier gets, so that a world has room for thousands of distinct ones. */
const MIN_DIGITS = 4;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
/** The longest id the world makes. */
const MOST_ID = 256;
/** Ids a shape makes to be checked against the parameters before it is chosen. */
const SAMPLES = 8;

/**
 * The id shape of an entity, from the parameters that name its records: a closed set when the
 * schema lists the ids (`enum`, `const`: those values, and no more); a UUID, an integer (within
 * the schema's bounds), an email or another format when the schema says so; else the example in a
 * description ("such as W2378156": letters kept, digits drawn, short digit runs widened); else the
 * schema's pattern; else `ORD-482913`, sized to the schema's lengths. Whatever the source, the ids
 * must pass every parameter's own schema, or the world would refuse ids it made: the first shape
 * whose ids all pass is chosen, and when none does, the last is kept with why in `unfit`.
 */
export function idFormat(
  entity: string,
  params: IdParameter[],
  prefix = defaultPrefix(entity),
): IdFormat {
  const refusal = (id: string, numeric: boolean): string | null => {
    // An id a page long is nobody's to quote, and every record and lookup would carry it.
    if (id.length > MOST_ID) return `an id of ${id.length} characters (at most ${MOST_ID})`;
    const value = numeric ? Number(id) : id;
    for (const param of params) {
      const problems = param.check?.(value) ?? [];
      if (problems.length > 0) return `${JSON.stringify(value)}: ${problems.join(", ")}`;
    }
    return null;
  };
  const rng = new Rng("id shape", entity);
  let last: IdFormat | null = null;
  let why = "";
  for (const shape of shapes(params, prefix)) {
    const format = shape.values
      ? withValues(
          shape,
          shape.values.filter((v) => !refusal(v, shape.numeric)),
        )
      : shape;
    if (format.values?.length === 0) {
      why = refusal(shape.values?.[0] ?? "", shape.numeric) ?? why;
      continue;
    }
    last = format;
    const refused = format.values
      ? null
      : Array.from({ length: SAMPLES }, () => refusal(format.make(rng), format.numeric)).find(
          (r) => r !== null,
        );
    if (!refused) return format;
    why = refused;
  }
  return { ...(last ?? defaultShape(prefix, params)), unfit: why };
}

/**
 * The parameters of an entity whose ids cannot be made: each one that refuses an id of the shape
 * kept, with the id and why, as problems of the spec.
 */
export function unfitParameters(
  entity: string,
  format: IdFormat,
  params: readonly IdParameter[],
): InputIssue[] {
  const rng = new Rng("id check", entity);
  const made = format.values ?? Array.from({ length: SAMPLES }, () => format.make(rng));
  const out: InputIssue[] = [];
  for (const param of params) {
    if (!param.check || param.at === undefined) continue;
    const check = param.check;
    const refused = made
      .map((id) => (format.numeric ? Number(id) : id))
      .map((value) => ({ value, problems: check(value) }))
      .find((r) => r.problems.length > 0);
    if (refused)
      out.push({
        path: param.at,
        message: `names ${entity} records, but no id the world can make passes its schema (${short(`${JSON.stringify(refused.value)}: ${refused.problems.join(", ")}`)}); the world makes ids from an enum or const, a pattern, an example in the description ("such as ORD-1234"), a number type or the formats ${Object.keys(FORMATS).join(", ")} and uuid: give every parameter that names ${entity} records one of these, the same for all`,
      });
  }
  return out;
}

/** A text cut to a message's worth: a pattern may be pages long. */
function short(text: string, most = 300): string {
  return text.length <= most ? text : `${text.slice(0, most - 1)}…`;
}

/** A closed set of ids narrowed to the values every parameter accepts. */
function withValues(shape: IdFormat, values: string[]): IdFormat {
  if (values.length === shape.values?.length || !shape.outside) return shape;
  return closedSet(values, shape.numeric, shape.outside);
}

/** The shapes an entity's ids could take, in the order they are tried. */
function* shapes(params: IdParameter[], prefix: string): Generator<IdFormat> {
  const patterns = params.flatMap((p) => (p.pattern ? [p.pattern] : []));
  const checks = patterns.flatMap((p) => patternCheck(p) ?? []);
  const fits = (id: string) => checks.every((accepts) => accepts(id));
  const types = params.flatMap((p) => (Array.isArray(p.type) ? p.type : p.type ? [p.type] : []));
  const numeric = types.includes("integer") || types.includes("number");
  const fixed = params.find((p) => p.const !== undefined);
  const listed = fixed
    ? [fixed.const]
    : params.find((p) => Array.isArray(p.enum) && p.enum.length > 0)?.enum;
  if (listed) {
    const scalars = listed.filter((v) => typeof v === "string" || typeof v === "number");
    const allNumbers = scalars.length > 0 && scalars.every((v) => typeof v === "number");
    yield closedSet(
      [...new Set(scalars.map(String))],
      allNumbers,
      allNumbers ? (rng) => `9${digits(rng, 7)}` : (rng) => `${prefix}_${digits(rng, 4)}`,
    );
  }
  if (params.some((p) => p.format === "uuid")) {
    yield withFind({
      source: "uuid",
      numeric: false,
      make: uuid,
      locate: (text) => [...text.matchAll(UUID)].map((m) => ({ value: m[0], at: m.index })),
    });
  }
  if (numeric) {
    yield withFind({
      source: "integer",
      numeric: true,
      make: (rng) => `${1 + rng.int(9)}${digits(rng, 5)}`,
      locate: finder(/\b\d{6}\b/g),
    });
    const bounded = numberRange(params);
    if (bounded) yield bounded;
  }
  const format = params.find((p) => p.format && FORMATS[p.format])?.format;
  if (format) yield formatShape(format, prefix);
  for (const param of params) {
    const example = EXAMPLE.exec(param.description ?? "")?.[1];
    if (!example || !/\d/.test(example)) continue;
    const widened = widen(example);
    if (!fits(widened)) continue;
    const shape = regexLiteral(widened).replace(/\d+/g, (run) => `\\d{${run.length}}`);
    yield withFind({
      source: "example",
      numeric: false,
      make: digitsDrawn(widened),
      locate: finder(
        new RegExp(`(?<![\\w#-])${shape}(?![\\w-])`, "g"),
        0,
        widened.slice(0, widened.search(/\d/)),
      ),
    });
  }
  for (const pattern of patterns) {
    const generator = fromPattern(pattern);
    if (!generator) continue;
    // An id is a whole token: "T86" is not a therapist's id inside the slot "SL-2245-T86". The
    // text comes from a model or a client, so the spec's pattern runs in linear time (RE2).
    yield withFind({
      source: "pattern",
      numeric: false,
      make: generator.make,
      locate: kept(
        (text) => tokenMatches(pattern, text, String.raw`\w-`) ?? [],
        generator.minLength,
      ),
    });
  }
  yield defaultShape(prefix, params);
}

/** The ids of a closed set: those values, and `outside` for one that names nothing. */
function closedSet(values: string[], numeric: boolean, outside: (rng: Rng) => string): IdFormat {
  // Only values as short as ids are looked for in text: an enum value of a page is nobody's id to
  // quote, and would make the pattern too large to compile.
  const quotable = values.filter((v) => v.length > 0 && v.length <= 64);
  const pattern = new RegExp(
    quotable.length === 0
      ? "(?!)"
      : `(?<![\\w#])(?:${quotable
          .map(regexLiteral)
          .sort((a, b) => b.length - a.length)
          .join("|")})(?![\\w])`,
    "g",
  );
  return withFind({
    source: "enum",
    numeric,
    values,
    make: (rng) => values[rng.int(values.length)] as string,
    outside,
    locate: (text) => [...text.matchAll(pattern)].map((m) => ({ value: m[0], at: m.index })),
  });
}

/** Integer ids within the bounds the parameters set (`minimum: 1, maximum: 500`). */
function numberRange(params: IdParameter[]): IdFormat | null {
  let low = 1;
  let high = 999_999;
  for (const p of params) {
    if (typeof p.minimum === "number") low = Math.max(low, Math.ceil(p.minimum));
    if (typeof p.exclusiveMinimum === "number")
      low = Math.max(low, Math.floor(p.exclusiveMinimum) + 1);
    if (typeof p.maximum === "number") high = Math.min(high, Math.floor(p.maximum));
    if (typeof p.exclusiveMaximum === "number")
      high = Math.min(high, Math.ceil(p.exclusiveMaximum) - 1);
  }
  if (low > high) return null;
  const width = String(high).length;
  return withFind({
    source: "integer",
    numeric: true,
    make: (rng) => String(low + rng.int(high - low + 1)),
    locate: finder(new RegExp(`\\b\\d{${String(low).length},${width}}\\b`, "g")),
  });
}

/** String formats an id can be made in, each with how to find such ids in text. */
const FORMATS: Record<string, { make: (rng: Rng, prefix: string) => string; find: RegExp }> = {
  email: {
    make: (rng, prefix) => `${prefix.toLowerCase()}.${digits(rng, 6)}@records.mail.net`,
    find: EMAIL,
  },
  "idn-email": {
    make: (rng, prefix) => `${prefix.toLowerCase()}.${digits(rng, 6)}@records.mail.net`,
    find: EMAIL,
  },
  hostname: {
    make: (rng, prefix) => `${prefix.toLowerCase()}-${digits(rng, 6)}.records.net`,
    find: /\b[a-z0-9-]+\.records\.net\b/g,
  },
  uri: {
    make: (rng, prefix) => `https://records.net/${prefix.toLowerCase()}/${digits(rng, 6)}`,
    find: /https:\/\/records\.net\/[a-z]+\/\d+/g,
  },
  ipv4: {
    make: (rng) => `10.${rng.int(256)}.${rng.int(256)}.${1 + rng.int(254)}`,
    find: /\b10\.\d{1,3}\.\d{1,3}\.\d{1,3}\b/g,
  },
  date: {
    make: (rng) => isoDay(Date.UTC(2015, 0, 1) + rng.int(4000) * 86_400_000),
    find: /\b\d{4}-\d{2}-\d{2}\b/g,
  },
};

/** Ids in a string format (`email`, `date`…) the parameters ask for. */
function formatShape(format: string, prefix: string): IdFormat {
  const { make, find } = FORMATS[format] as (typeof FORMATS)[string];
  return withFind({
    source: "format",
    numeric: false,
    make: (rng) => make(rng, prefix),
    locate: (text) => [...text.matchAll(find)].map((m) => ({ value: m[0], at: m.index })),
  });
}

/**
 * `ORD-482913`, or as long as the parameters' `minLength` and `maxLength` allow: more digits for a
 * long minimum, fewer (and no prefix, when even that is too long) for a short maximum.
 */
function defaultShape(prefix: string, params: IdParameter[]): IdFormat {
  const least = Math.max(0, ...params.map((p) => p.minLength ?? 0));
  const most = Math.min(64, ...params.map((p) => p.maxLength ?? 64));
  const length = Math.min(Math.max(prefix.length + 7, least), most);
  const lead = length >= prefix.length + 2 + 1 ? `${prefix}-` : "";
  const count = Math.max(1, length - lead.length);
  return withFind({
    source: "default",
    numeric: false,
    make: (rng) => `${lead}${digits(rng, count)}`,
    locate: finder(
      new RegExp(`(?<![\\w-])${regexLiteral(lead)}\\d{${count}}(?![\\w-])`, "g"),
      0,
      lead,
    ),
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

/**
 * Matches of a shape that are long enough and not the digits of an amount or a decimal. A shape
 * that starts with literal text (`ORD-`) is not looked for in a text without it: most texts an
 * episode reads are searched for every entity's ids, and hold few of them.
 */
function finder(match: RegExp, minLength = 0, lead = ""): (text: string) => IdMatch[] {
  const search = kept(
    (text) => [...text.matchAll(match)].map((m) => ({ value: m[0], at: m.index })),
    minLength,
  );
  return lead === "" ? search : (text) => (text.includes(lead) ? search(text) : []);
}

/** The matches a search finds that are long enough and not the digits of an amount or a decimal. */
function kept(search: (text: string) => IdMatch[], minLength: number): (text: string) => IdMatch[] {
  return (text) =>
    search(text).filter(({ value, at }) => {
      const before = text.slice(Math.max(0, at - 2), at);
      const after = text.slice(at + value.length, at + value.length + 2);
      return value.length >= minLength && !/\d[.,]$/.test(before) && !/^[.,]\d/.test(after);
    });
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
