import type { JsonSchemaObject, ToolDefinition, WorldRecord } from "../../spec/index.ts";
import { argumentCheck } from "../arguments.ts";
import { type ValueCheck, valueCheck } from "../schema-checks.ts";
import { keyed } from "../util/lookup.ts";
import type { SchemaFragment } from "./values.ts";

/** The fields an object of an answer shows, as its output schema names them. */
export interface ObjectShape {
  /** Each field shown, with its schema. */
  fields: Record<string, SchemaFragment>;
  required: readonly string[];
  /** Each field's schema closed to the fields it names (see {@link closedSchema}). */
  closed: Record<string, SchemaFragment>;
  /** Each field's check against its closed schema, null where it cannot be checked alone. */
  checks: ReadonlyMap<string, ValueCheck | null>;
}

/**
 * How a tool's output schema shapes its answers: one record, or records listed under one key
 * (`{"matches": [...]}`) with what the schema says of the list beside it (`count`, `has_more`).
 */
export interface AnswerShape {
  /** The property an answer lists its records under; null when it shows one record. */
  list: string | null;
  /** The fields of the record shown, or of each record listed. */
  record: ObjectShape;
  /** The properties beside the list, about it; empty for one record. */
  about: ObjectShape;
}

/** Properties of a list answer that describe the list rather than hold a record. */
const ABOUT_LIST =
  /^(count|total|total_count|total_results|num_results|results?_count|has_more|more|truncated|next_cursor|cursor|next_page|next_page_token|page|page_size|per_page|limit|offset)$/;

/** Optional fields that explain a failure: a write that went through shows none of them. */
const FAILURE_FIELD =
  /(^|_)(errors?|rejection|rejected|failure|failed|decline|declined|denial)(_|$)/;

/** Enum choices that say a write did not go through. */
const FAILURE_CHOICE = /^(rejected|failed|failure|declined|denied|error|invalid|refused)$/;

/** Keywords that combine schemas: an object under one is left open, as closing it would refuse what the others allow. */
const COMBINATORS = ["allOf", "anyOf", "oneOf", "not", "if", "then", "else"];

/**
 * The shape a tool's output schema gives its answers, or null when it names no properties. A
 * listing whose schema holds one array of objects, and otherwise only facts about the list, lists
 * its records under that array's name; any other schema describes the one record answered.
 */
export function answerShape(tool: ToolDefinition, listing: boolean): AnswerShape | null {
  const output = tool.output_schema as (SchemaFragment & { required?: unknown }) | undefined;
  const properties = output?.properties;
  if (!output || !properties || Object.keys(properties).length === 0) return null;
  const root = closedSchema(output as JsonSchemaObject) as SchemaFragment;
  const closed = root.properties as Record<string, SchemaFragment>;
  const lists = Object.keys(properties).filter((key) => {
    const items = properties[key]?.items;
    return (
      properties[key]?.type === "array" &&
      items?.type === "object" &&
      Object.keys(items.properties ?? {}).length > 0
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
  if (
    listing &&
    list !== null &&
    Object.keys(properties).every((key) => key === list || ABOUT_LIST.test(key))
  ) {
    const items = properties[list]?.items as SchemaFragment & { required?: unknown };
    const closedItems = closed[list]?.items as SchemaFragment;
    const about = (from: Record<string, SchemaFragment>) => {
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
      about: objectShape(about(properties), about(closed), output.required),
    };
  }
  return {
    list: null,
    record: objectShape(properties, closed, output.required),
    about: objectShape({}, {}, []),
  };
}

/**
 * A copy of an output schema in which every object that names its properties, and says nothing of
 * others, allows no others: an answer shows the fields its tool documents and nothing the model
 * trained on it would never see from the real tool.
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
    return argumentCheck(closedSchema(output));
  } catch {
    // A schema ajv cannot compile claims nothing about the answers.
    return null;
  }
}

/** Makes a value for a field an answer must show but whose record does not hold one fitting the schema. */
export type FieldFill = (field: string, schema: SchemaFragment) => unknown;

/**
 * What an answer shows of `values`: exactly the fields its schema names, each fitting its schema
 * (keys it does not name left out at every depth). A required field missing or still off its
 * schema is filled, as is an enum's choice the schema does not allow; a write that went through
 * shows the first choice that is no failure, `true` where a required yes-or-no is missing
 * (`created`), and no optional failure reason.
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
    if (values[field] === undefined && !required) continue;
    if (wrote && !required && FAILURE_FIELD.test(field)) continue;
    const value = trimmed(values[field], shape.closed[field]);
    const check = shape.checks.get(field);
    if (value !== undefined && (check ? check(value).length === 0 : true)) {
      out[field] = value;
      continue;
    }
    if (wrote && Array.isArray(schema.enum)) {
      const success = schema.enum.find((c) => typeof c !== "string" || !FAILURE_CHOICE.test(c));
      if (success !== undefined) {
        out[field] = success;
        continue;
      }
    }
    const type = Array.isArray(schema.type) ? schema.type : [schema.type];
    out[field] =
      wrote && value === undefined && type.includes("boolean") ? true : fill(field, schema);
  }
  return out;
}
