import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { JsonSchemaObject } from "../spec/index.ts";
import { formatPath } from "./util/errors.ts";
import { isKeyed, keyed } from "./util/lookup.ts";
import { linearPattern, PatternError } from "./util/regex.ts";

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * ajv's engine for `pattern`, `patternProperties` and `propertyNames`: RE2, so that matching a
 * spec's pattern takes time linear in the argument whatever the pattern (the backtracking engine
 * took 1.3 s on 28 characters of `^([a-zA-Z0-9]+\s?)*$`, doubling with each one more).
 */
const linearRegExp = Object.assign(
  (pattern: string) => {
    const re = linearPattern(pattern);
    // ajv shares one compiled pattern between schemas by this string.
    return { test: (text: string) => re.test(text), toString: () => `/${pattern}/u` };
  },
  // What ajv would write for it in standalone code, which rehearse never generates.
  { code: "linearPattern" },
);

// multipleOfPrecision: 163.42 is a multiple of 0.01 although 163.42 / 0.01 is 16341.999… in floats.
const options: Options = {
  allErrors: true,
  strict: false,
  validateFormats: true,
  multipleOfPrecision: 9,
  code: { regExp: linearRegExp },
};
const validators = {
  draft7: addFormats(new Ajv(options)),
  draft2019: addFormats(new Ajv2019(options)),
  draft2020: addFormats(new Ajv2020(options)),
};
const compiled = new WeakMap<object, ValidateFunction>();

/** A compiled check of a tool's arguments: the list of problems, empty when they are valid. */
export type ArgumentCheck = (args: unknown) => string[];

/**
 * Compiles a tool's parameter schema (draft-07 unless its `$schema` says 2019-09 or 2020-12);
 * throws if it is not a valid JSON Schema, or if one of its patterns cannot be matched in linear
 * time (a backreference, a lookaround), naming where in the schema that pattern is.
 */
export function argumentCheck(schema: JsonSchemaObject): ArgumentCheck {
  let validate = compiled.get(schema);
  if (!validate) {
    const declared = typeof schema.$schema === "string" ? schema.$schema : "";
    const ajv = declared.includes("2020-12")
      ? validators.draft2020
      : declared.includes("2019-09")
        ? validators.draft2019
        : validators.draft7;
    forgetIds(ajv, schema);
    try {
      validate = ajv.compile(hasProtoName(schema) ? aliasProto(schema) : schema);
    } catch (error) {
      if (!(error instanceof PatternError)) throw error;
      throw new PatternError(
        error.pattern,
        error.reason,
        patternPath(schema, error.pattern) ?? undefined,
      );
    }
    compiled.set(schema, validate);
  }
  const check = validate;
  return (args) =>
    check(forAjv(args))
      ? []
      : (check.errors ?? []).map((e) => describe(e).replaceAll(ALIAS, PROTO));
}

const PROTO = "__proto__";
/**
 * What `__proto__` is called while ajv checks it: ajv leaves a property of that name out of
 * `properties` (so its schema is never applied and `additionalProperties: false` refuses it), but a
 * spec may name a parameter so. Messages name it back.
 */
const ALIAS = "\u0000__proto__";

/** Every object and array of a JSON value, met without recursion. */
function* containers(value: unknown): Generator<object> {
  const stack = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === null || typeof next !== "object") continue;
    yield next;
    stack.push(...(Array.isArray(next) ? next : Object.values(next)));
  }
}

function hasProtoName(schema: object): boolean {
  for (const node of containers(schema)) if (Object.hasOwn(node, PROTO)) return true;
  return false;
}

/**
 * A copy of a schema with the property `__proto__` renamed to {@link ALIAS} wherever it is named:
 * `properties`, `required`, `dependentRequired`, `dependencies` and references through them.
 */
function aliasProto(schema: object): object {
  const rename = (name: unknown) => (name === PROTO ? ALIAS : name);
  const naming = new Set(["properties", "dependentRequired", "dependencies"]);
  return copyJson(schema, (key, value, parent) => {
    const named = naming.has(String(parent)) ? (rename(key) as string) : key;
    if (Array.isArray(value) && (key === "required" || naming.has(String(parent))))
      return [named, value.map(rename)];
    if (key === "$ref" && typeof value === "string")
      return [named, value.replace(/\/properties\/__proto__(?=\/|$)/g, `/properties/${ALIAS}`)];
    return [named, value];
  });
}

/**
 * A JSON value (a call's arguments, a snapshot) with every object rebuilt without a prototype, so
 * that names a spec gives (`__proto__`, `constructor`, `hasOwnProperty`) are read as its own keys
 * and never as Object's: a missing `constructor` argument is missing. Walked without recursion.
 */
export function bareJson<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  return copyJson(value, null, true) as T;
}

/**
 * Arguments as ajv should see them: objects without a prototype, so a missing `constructor` or
 * `hasOwnProperty` is missing rather than Object's own, and `__proto__` renamed to {@link ALIAS}.
 * Arguments already so (a world's call reads them {@link bareJson}) are checked as they are.
 */
function forAjv(args: unknown): unknown {
  if (args === null || typeof args !== "object" || readyForAjv(args)) return args;
  return copyJson(args, (key, value) => [key === PROTO ? ALIAS : key, value], true);
}

/** Whether every object in `value` is {@link keyed} and none holds a key `__proto__`. */
function readyForAjv(value: object): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === null || typeof next !== "object") continue;
    if (Array.isArray(next)) {
      for (const item of next) stack.push(item);
      continue;
    }
    if (!isKeyed(next) || Object.hasOwn(next, PROTO)) return false;
    for (const key in next) stack.push((next as Record<string, unknown>)[key]);
  }
  return true;
}

/**
 * A deep copy of a JSON value, walked without recursion, each member of an object passed through
 * `member` (given its key, its value and the key of the object holding it) when one is given.
 * `__proto__` is defined, never assigned, so it stays a key; `bare` objects get no prototype.
 */
function copyJson(
  value: object,
  member:
    | ((key: string, value: unknown, parent: string | number | null) => [string, unknown])
    | null,
  bare = false,
): object {
  const root = emptyLike(value, bare);
  const stack: { from: object; to: object; key: string | number | null }[] = [
    { from: value, to: root, key: null },
  ];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { from, to, key: parent } = next;
    if (Array.isArray(from)) {
      // An index loop, not map: an array built in code may have holes, which map would keep.
      const copy = to as unknown[];
      for (let i = 0; i < from.length; i++) {
        const item: unknown = from[i];
        const child = item !== null && typeof item === "object" ? emptyLike(item, bare) : item;
        copy[i] = child;
        if (child !== item) stack.push({ from: item as object, to: child as object, key: i });
      }
      continue;
    }
    for (const rawKey of Object.keys(from)) {
      const rawValue = (from as Record<string, unknown>)[rawKey];
      const [key, value] = member ? member(rawKey, rawValue, parent) : [rawKey, rawValue];
      const child = value !== null && typeof value === "object" ? emptyLike(value, bare) : value;
      if (key === PROTO)
        Object.defineProperty(to, key, {
          value: child,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else (to as Record<string, unknown>)[key] = child;
      if (child !== value) stack.push({ from: value as object, to: child as object, key: rawKey });
    }
  }
  return root;
}

/** An empty array for an array, else an empty object, {@link keyed} when `bare`. */
function emptyLike(node: object, bare: boolean): object {
  return Array.isArray(node) ? [] : bare ? keyed() : {};
}

/**
 * Drops the schemas a tool schema's `$id`s name from ajv's registry before it is compiled: the same
 * spec read twice (a server, a test, a resumed run) brings the same `$id`s again, and ajv refuses
 * an id it already holds. What was compiled from them stays compiled.
 */
function forgetIds(ajv: Ajv, schema: object): void {
  for (const node of containers(schema)) {
    const id = (node as { $id?: unknown }).$id;
    if (typeof id === "string" && !id.startsWith("#")) ajv.removeSchema(id.replace(/#$/, ""));
  }
}

/**
 * Where a pattern sits in a schema: the first `pattern` keyword holding it, or the
 * `patternProperties` key that is it. Walked without recursion, as a spec's schema may nest deeply.
 */
function patternPath(schema: unknown, pattern: string): string | null {
  const stack: [unknown, PropertyKey[]][] = [[schema, []]];
  while (stack.length > 0) {
    const [node, path] = stack.pop() as [unknown, PropertyKey[]];
    if (node === null || typeof node !== "object") continue;
    const entries = Array.isArray(node)
      ? node.map((v, i) => [i, v] as const)
      : Object.entries(node);
    for (const [key, value] of entries) {
      if (key === "pattern" && value === pattern) return formatPath([...path, key]);
      if (
        key === "patternProperties" &&
        value &&
        typeof value === "object" &&
        Object.hasOwn(value, pattern)
      )
        return `${formatPath([...path, key])}[${JSON.stringify(pattern)}]`;
      stack.push([value, [...path, key]]);
    }
  }
  return null;
}

/** One ajv error as a sentence an agent can act on, naming the argument. */
function describe(error: ErrorObject): string {
  const at = error.instancePath.replace(/^\//, "").replace(/\//g, ".");
  const field = at === "" ? "arguments" : `"${at}"`;
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `missing required argument "${at ? `${at}.` : ""}${String(p.missingProperty)}"`;
    case "additionalProperties":
      return `unknown argument "${at ? `${at}.` : ""}${String(p.additionalProperty)}"`;
    case "type":
      return `${field} must be ${article(String(p.type))}`;
    case "enum":
      return `${field} must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "format":
      return `${field} must be ${FORMAT_WORDS[String(p.format)] ?? `in ${String(p.format)} format`}`;
    default:
      return `${field} ${error.message ?? "is invalid"}`;
  }
}

const FORMAT_WORDS: Record<string, string> = {
  date: "a date like 2026-06-15",
  "date-time": "a date and time like 2026-06-15T09:30:00Z",
  email: "an email address",
  uri: "a URI",
  uuid: "a UUID",
};

function article(type: string): string {
  const words = type
    .split(",")
    .map((t) =>
      t === "integer"
        ? "an integer"
        : t === "object"
          ? "an object"
          : t === "array"
            ? "an array"
            : `a ${t}`,
    );
  return words.join(" or ");
}
