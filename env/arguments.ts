import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { JsonSchemaObject } from "../spec/index.ts";

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

// multipleOfPrecision: 163.42 is a multiple of 0.01 although 163.42 / 0.01 is 16341.999… in floats.
const options = {
  allErrors: true,
  strict: false,
  validateFormats: true,
  multipleOfPrecision: 9,
} as const;
const validators = {
  draft7: addFormats(new Ajv(options)),
  draft2019: addFormats(new Ajv2019(options)),
  draft2020: addFormats(new Ajv2020(options)),
};
const compiled = new WeakMap<object, ValidateFunction>();

/** A compiled check of a tool's arguments: the list of problems, empty when they are valid. */
export type ArgumentCheck = (args: unknown) => string[];

/** Compiles a tool's parameter schema (draft-07 unless its `$schema` says 2019-09 or 2020-12); throws if it is not a valid JSON Schema. */
export function argumentCheck(schema: JsonSchemaObject): ArgumentCheck {
  let validate = compiled.get(schema);
  if (!validate) {
    const declared = typeof schema.$schema === "string" ? schema.$schema : "";
    const ajv = declared.includes("2020-12")
      ? validators.draft2020
      : declared.includes("2019-09")
        ? validators.draft2019
        : validators.draft7;
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  const check = validate;
  return (args) => (check(args) ? [] : (check.errors ?? []).map(describe));
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
