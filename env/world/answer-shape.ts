import type { JsonSchemaObject, ToolDefinition, WorldRecord } from "../../spec/index.ts";
import { argumentCheck } from "../arguments.ts";
import { type ValueCheck, valueCheck } from "../schema-checks.ts";
import { keyed } from "../util/lookup.ts";
import type { SchemaFragment } from "./values.ts";

/** The fields an object of an answer shows, as its output schema names them. */
export interface ObjectShape {
  /** Each field shown, with its schema (local `$ref`s resolved). */
  fields: Record<string, SchemaFragment>;
  required: readonly string[];
  /** Each field's schema closed to the fields it names (see {@link closedSchema}). */
  closed: Record<string, SchemaFragment>;
  /** Each field's check against its closed schema, null where it cannot be checked alone. */
  checks: ReadonlyMap<string, ValueCheck | null>;
}

/**
 * How a tool's output schema shapes its answers: one record, or records listed under one key
 * (`{"matches": [...]}`) with the schema's other properties beside the list (`count`, `query`).
 */
export interface AnswerShape {
  /** The property an answer lists its records under; null when it shows one record. */
  list: string | null;
  /** The fields of the record shown, or of each record listed. */
  record: ObjectShape;
  /** The properties beside the list; empty for one record. */
  about: ObjectShape;
}

/** Optional fields that explain a failure: a write that went through shows none of them. */
const FAILURE_FIELD =
  /(^|_)(errors?|rejection|rejected|failure|failed|decline|declined|denial)(_|$)/;

/** Yes-or-no fields that say a write went through (`created`, `success`). */
const SUCCESS_FIELD =
  /^(ok|success|successful|succeeded|created|updated|deleted|cancelled|canceled|accepted|applied|done|completed|confirmed|sent|saved|booked|scheduled|submitted|processed)$/;

/** Fields of a write's answer that tell how the write went, not what its record holds. */
const OUTCOME_FIELD = /^(result|outcome|message|status_message|warnings?)$/;

/** Whether a field of a write's answer tells how the write went (`created`, `result`, `error`). */
export function isOutcomeField(field: string): boolean {
  return SUCCESS_FIELD.test(field) || FAILURE_FIELD.test(field) || OUTCOME_FIELD.test(field);
}

/** Enum choices that say a write did not go through. */
const FAILURE_CHOICE = /^(rejected|failed|failure|declined|denied|error|invalid|refused)$/;

/** Keywords that combine schemas: an object under one is left open, as closing it would refuse what the others allow. */
const COMBINATORS = ["allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas"];

/** How many local `$ref`s deep a schema is resolved: a recursive schema stops there. */
const REF_DEPTH = 8;

/**
 * The shape a tool's output schema gives its answers, or null when it names no properties. A
 * listing whose schema holds one array of objects lists its records under that array's name, the
 * other properties beside it; any other schema describes the one record answered.
 */
export function answerShape(tool: ToolDefinition, listing: boolean): AnswerShape | null {
  if (!tool.output_schema) return null;
  const output = resolvedSchema(tool.output_schema) as SchemaFragment & { required?: unknown };
  const properties = output.properties;
  if (!properties || Object.keys(properties).length === 0) return null;
  const root = closedSchema(output as JsonSchemaObject) as SchemaFragment;
  const closed = root.properties as Record<string, SchemaFragment>;
  const lists = Object.keys(properties).filter((key) => {
    const items = properties[key]?.items;
    return (
      holdsType(properties[key], "array") &&
      holdsType(items, "object") &&
      Object.keys(items?.properties ?? {}).length > 0
    );
  });
  const list = lists.length === 1 ? (lists[0] as string) : null;
  const objectShape = (
    fields: Record<string, SchemaFragment>,
    closedFields: Record<string, SchemaFragment>,
    required: unknown,
  ): ObjectShape => {
    const checks = new Map<string, ValueCheck | null>();
    for (const field of Object.keys(fields))
      checks.set(
        field,
        valueCheck(closedFields[field] as Record<string, unknown>, root as Record<string, unknown>),
      );
    return {
      fields,
      closed: closedFields,
      required: Array.isArray(required)
        ? required.filter((r): r is string => typeof r === "string" && Object.hasOwn(fields, r))
        : [],
      checks,
    };
  };
  if (listing && list !== null) {
    const items = properties[list]?.items as SchemaFragment & { required?: unknown };
    const closedItems = closed[list]?.items as SchemaFragment;
    const beside = (from: Record<string, SchemaFragment>) => {
      const out = keyed<SchemaFragment>();
      for (const key of Object.keys(from)) if (key !== list) out[key] = from[key] as SchemaFragment;
      return out;
    };
    return {
      list,
      record: objectShape(
        items.properties ?? {},
        closedItems.properties as Record<string, SchemaFragment>,
        items.required,
      ),
      about: objectShape(beside(properties), beside(closed), output.required),
    };
  }
  return {
    list: null,
    record: objectShape(properties, closed, output.required),
    about: objectShape({}, {}, []),
  };
}

/** Whether a schema's `type` is `kind` or a list holding it (`["object", "null"]`). */
function holdsType(schema: SchemaFragment | undefined, kind: string): boolean {
  const type = schema?.type;
  return Array.isArray(type) ? type.includes(kind) : type === kind;
}

/**
 * A copy of a schema with its local `$ref`s (`#/$defs/…`, `#/definitions/…`) replaced by what they
 * name, and an `allOf` of plain objects merged into one, so the world reads the fields a schema
 * shares between its parts. A reference it cannot follow, or past {@link REF_DEPTH}, stays.
 */
export function resolvedSchema(schema: JsonSchemaObject): JsonSchemaObject {
  const root = schema as Record<string, unknown>;
  const target = (ref: string): unknown => {
    const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
    const defs = match ? root[match[1] as string] : undefined;
    const name = match
      ? decodeURIComponent((match[2] as string).replace(/~1/g, "/").replace(/~0/g, "~"))
      : "";
    return defs !== null && typeof defs === "object" && Object.hasOwn(defs, name)
      ? (defs as Record<string, unknown>)[name]
      : undefined;
  };
  const resolve = (node: unknown, depth: number): unknown => {
    if (node === null || typeof node !== "object") return node;
    if (Array.isArray(node)) return node.map((n) => resolve(n, depth));
    let source = node as Record<string, unknown>;
    if (typeof source.$ref === "string" && depth < REF_DEPTH) {
      const named = target(source.$ref);
      if (named !== null && typeof named === "object" && !Array.isArray(named)) {
        const { $ref: _ref, ...siblings } = source;
        source = { ...(named as Record<string, unknown>), ...siblings };
        return resolve(source, depth + 1);
      }
    }
    const out = keyed();
    for (const [key, value] of Object.entries(source)) {
      if (key === "properties" || key === "$defs" || key === "definitions") {
        const children = keyed();
        if (value !== null && typeof value === "object")
          for (const [name, child] of Object.entries(value)) children[name] = resolve(child, depth);
        out[key] = children;
      } else out[key] = resolve(value, depth);
    }
    return mergedAllOf(out);
  };
  return resolve(schema, 0) as JsonSchemaObject;
}

/** An `allOf` whose parts only name properties (and which are required) merged into its object. */
function mergedAllOf(node: Record<string, unknown>): Record<string, unknown> {
  const parts = node.allOf;
  if (!Array.isArray(parts) || parts.length === 0) return node;
  const plain = parts.every(
    (p) =>
      p !== null &&
      typeof p === "object" &&
      Object.keys(p).every((k) => ["type", "properties", "required", "description"].includes(k)) &&
      ((p as { type?: unknown }).type === undefined || (p as { type?: unknown }).type === "object"),
  );
  if (!plain) return node;
  const { allOf: _allOf, ...rest } = node;
  const properties = keyed();
  const required = new Set<string>();
  for (const part of [rest, ...(parts as Record<string, unknown>[])]) {
    const props = part.properties;
    if (props !== null && typeof props === "object")
      for (const [name, child] of Object.entries(props)) properties[name] = child;
    if (Array.isArray(part.required))
      for (const r of part.required) if (typeof r === "string") required.add(r);
  }
  return {
    ...rest,
    type: "object",
    properties,
    ...(required.size > 0 ? { required: [...required] } : {}),
  };
}

/**
 * A copy of an output schema in which every object that names its properties, and says nothing of
 * others, allows no others: an answer shows the fields its tool documents and nothing the model
 * trained on it would never see from the real tool. Objects under a combinator, or beside a
 * `$ref`, stay open: closing them would refuse what the other parts allow.
 */
export function closedSchema(schema: JsonSchemaObject): JsonSchemaObject {
  const close = (node: unknown): unknown => {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
    const source = node as Record<string, unknown>;
    const out = keyed();
    for (const [key, value] of Object.entries(source)) {
      if (key === "properties" || key === "$defs" || key === "definitions") {
        const children = keyed();
        if (value !== null && typeof value === "object")
          for (const [name, child] of Object.entries(value)) children[name] = close(child);
        out[key] = children;
      } else out[key] = key === "items" ? close(value) : value;
    }
    const open =
      source.additionalProperties !== undefined ||
      source.patternProperties !== undefined ||
      source.unevaluatedProperties !== undefined ||
      source.$ref !== undefined ||
      COMBINATORS.some((k) => source[k] !== undefined);
    if (source.properties !== undefined && !open) out.additionalProperties = false;
    return out;
  };
  return close(schema) as JsonSchemaObject;
}

/** A value with the keys its closed schema allows no place for left out, at every depth it names. */
function trimmed(value: unknown, schema: SchemaFragment | undefined): unknown {
  if (schema === undefined || value === null || typeof value !== "object") return value;
  if (Array.isArray(value))
    return schema.items ? value.map((v) => trimmed(v, schema.items)) : value;
  const properties = schema.properties;
  if (!properties || (schema as { additionalProperties?: unknown }).additionalProperties !== false)
    return value;
  const out = keyed();
  for (const [key, v] of Object.entries(value))
    if (Object.hasOwn(properties, key)) out[key] = trimmed(v, properties[key]);
  return out;
}

/** A check of a whole answer against its tool's closed output schema; null without one. */
export function answerCheck(tool: ToolDefinition): ValueCheck | null {
  const output = tool.output_schema;
  if (!output?.properties || Object.keys(output.properties).length === 0) return null;
  try {
    return argumentCheck(closedSchema(resolvedSchema(output)));
  } catch {
    // A schema ajv cannot compile claims nothing about the answers.
    return null;
  }
}

/** Makes a value for a field an answer must show but whose record does not hold one fitting the schema. */
export type FieldFill = (field: string, schema: SchemaFragment) => unknown;

/**
 * What an answer shows of `values`: exactly the fields its schema names, each fitting its schema
 * (keys it does not name left out at every depth). A required field missing or off its schema is
 * filled; an optional one off its schema is left out. A write that went through says so whatever
 * its record holds: a result enum shows its first choice that is no failure, a yes-or-no named for
 * success (`created`) is true, one named for failure false, and a failure reason is left out, or
 * empty where the schema requires it.
 */
export function fitAnswer(
  shape: ObjectShape,
  values: WorldRecord,
  wrote: boolean,
  fill: FieldFill,
): WorldRecord {
  const out: WorldRecord = keyed();
  for (const [field, schema] of Object.entries(shape.fields)) {
    const required = shape.required.includes(field);
    if (wrote) {
      const said = writeOutcome(field, schema, required);
      if (said === LEFT_OUT) continue;
      if (said !== undefined) {
        out[field] = said;
        continue;
      }
    }
    const value = trimmed(values[field], shape.closed[field]);
    const check = shape.checks.get(field);
    if (value !== undefined && (check ? check(value).length === 0 : true)) out[field] = value;
    else if (required) out[field] = fill(field, schema);
  }
  return out;
}

/** A field a write's answer leaves out. */
const LEFT_OUT = Symbol("left out");

/** What a write that went through shows in a field that speaks of its outcome; undefined for any other field. */
function writeOutcome(field: string, schema: SchemaFragment, required: boolean): unknown {
  const choices = Array.isArray(schema.enum) ? schema.enum : null;
  if (choices?.some((c) => typeof c === "string" && FAILURE_CHOICE.test(c))) {
    return (
      choices.find((c) => c === true) ??
      choices.find((c) => typeof c === "string" && !FAILURE_CHOICE.test(c)) ??
      choices.find((c) => c !== null && c !== false)
    );
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const yesOrNo = types.includes("boolean") || choices?.every((c) => typeof c === "boolean");
  if (yesOrNo && SUCCESS_FIELD.test(field)) return true;
  if (!FAILURE_FIELD.test(field)) return undefined;
  if (yesOrNo) return false;
  if (!required) return LEFT_OUT;
  if (types.includes("null")) return null;
  if (types.includes("array")) return [];
  if (types.includes("string")) return "";
  return LEFT_OUT;
}
