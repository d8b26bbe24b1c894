import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { JsonSchemaObject } from "../spec/index.ts";
import { formatPath } from "./util/errors.ts";
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
    try {
      validate = ajv.compile(schema);
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
  return (args) => (check(args) ? [] : (check.errors ?? []).map(describe));
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
