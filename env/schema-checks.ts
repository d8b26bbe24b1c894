import { argumentCheck } from "./arguments.ts";
import { formatPath, type InputIssue } from "./util/errors.ts";

/**
 * How many objects and arrays a spec may hold inside one another. A real tool schema needs far
 * fewer (an object parameter nested ten deep is rare); the bound keeps every walk of a spec (the
 * hash, ajv, the world) clear of the call stack's limit.
 */
export const MAX_DEPTH = 64;

/** A container met on a walk, with the way back to the top for its path. */
interface Visit {
  value: object;
  key: PropertyKey;
  parent: Visit | null;
  depth: number;
}

function pathOf(visit: Visit | null): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at = visit; at?.parent; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * Where a value nests objects and arrays deeper than {@link MAX_DEPTH}: the first too-deep place
 * in each top-level part (each tool, the policy, the axes…), walked without recursion. A value
 * that contains itself nests without end, so it is refused here too.
 */
export function depthProblems(value: unknown, limit = MAX_DEPTH): InputIssue[] {
  if (value === null || typeof value !== "object") return [];
  const problems: InputIssue[] = [];
  const reported = new Set<string>();
  // An object shared by several parents (possible in objects built in code) is walked again only
  // from deeper down than before: at most `limit` times, never once per path to it.
  const deepest = new Map<object, number>();
  const stack: Visit[] = [{ value, key: "", parent: null, depth: 1 }];
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    if (visit.depth > limit) {
      const path = pathOf(visit);
      const part = formatPath(path.slice(0, typeof path[1] === "number" ? 2 : 1));
      if (!reported.has(part)) {
        reported.add(part);
        problems.push({
          path: formatPath(path),
          message: `nests objects and arrays more than ${limit} deep; a spec may nest at most ${limit} levels`,
        });
      }
      continue;
    }
    if ((deepest.get(visit.value) ?? 0) >= visit.depth) continue;
    deepest.set(visit.value, visit.depth);
    // Array.from, not map: an array built in code may have holes, which map would keep.
    const entries: [PropertyKey, unknown][] = Array.isArray(visit.value)
      ? Array.from(visit.value, (v, i) => [i, v])
      : Object.entries(visit.value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i] as [PropertyKey, unknown];
      if (child !== null && typeof child === "object")
        stack.push({ value: child, key, parent: visit, depth: visit.depth + 1 });
    }
  }
  return problems;
}

/** Whether a value nests objects and arrays deeper than `limit`, found without recursion. */
export function nestsDeeper(value: unknown, limit = MAX_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [next, depth] = stack.pop() as [unknown, number];
    if (next === null || typeof next !== "object") continue;
    if (depth > limit) return true;
    for (const child of Object.values(next)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Keywords whose schemas apply to the same value as the schema holding them. */
const IN_PLACE_LISTS = ["allOf", "anyOf", "oneOf"] as const;
const IN_PLACE_ONE = ["not", "if", "then", "else"] as const;
const IN_PLACE_MAPS = ["dependentSchemas", "dependencies"] as const;
/** Keywords whose schemas apply to a part of the value: a property, an item, a key. */
const INSIDE_ONE = [
  "additionalProperties",
  "items",
  "additionalItems",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
] as const;
const INSIDE_LISTS = ["items", "prefixItems"] as const;
const INSIDE_MAPS = ["properties", "patternProperties"] as const;
/** Keywords that only hold schemas for references to reach. */
const HOLDERS = ["$defs", "definitions"] as const;
const REFS = ["$ref", "$recursiveRef", "$dynamicRef"] as const;

/** One schema of a tool's schema: where it sits, and the resource its references are read against. */
interface SchemaNode {
  schema: Record<string, unknown>;
  path: PropertyKey[];
  /** The URI its `#…` references resolve against: its own `$id`, else its resource's. */
  base: string;
}

/** A schema object, not a boolean schema or anything else. */
function isSchema(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The base every tool schema starts from, so relative `$id`s resolve to something comparable. */
const ROOT_BASE = "rehearse:/tool-schema";

function resolveUri(ref: string, base: string): string | null {
  try {
    return new URL(ref, base).href;
  } catch {
    return null;
  }
}

/** A JSON pointer's tokens: `/$defs/a~1b` → `$defs`, `a/b`. */
function pointerTokens(pointer: string): string[] | null {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return null;
  try {
    return pointer
      .slice(1)
      .split("/")
      .map((t) => decodeURIComponent(t).replace(/~1/g, "/").replace(/~0/g, "~"));
  } catch {
    return null;
  }
}

/** Every schema in a tool's schema, found without recursion, with its resource's base URI. */
function schemaNodes(root: unknown): {
  nodes: SchemaNode[];
  byObject: Map<object, SchemaNode>;
  resources: Map<string, SchemaNode>;
  anchors: Map<string, SchemaNode>;
} {
  const nodes: SchemaNode[] = [];
  const byObject = new Map<object, SchemaNode>();
  const resources = new Map<string, SchemaNode>();
  const anchors = new Map<string, SchemaNode>();
  if (!isSchema(root)) return { nodes, byObject, resources, anchors };
  const stack: { schema: unknown; path: PropertyKey[]; base: string }[] = [
    { schema: root, path: [], base: ROOT_BASE },
  ];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { schema, path } = next;
    if (!isSchema(schema) || byObject.has(schema)) continue;
    let base = next.base;
    const id = schema.$id;
    if (typeof id === "string" && !id.startsWith("#")) {
      base = resolveUri(id.replace(/#$/, ""), base) ?? base;
    }
    const node: SchemaNode = { schema, path, base };
    nodes.push(node);
    byObject.set(schema, node);
    if (!resources.has(base)) resources.set(base, node);
    // Draft-07 names an anchor with `$id: "#name"`; later drafts with `$anchor` or `$dynamicAnchor`.
    for (const anchor of [
      typeof id === "string" && id.startsWith("#") ? id.slice(1) : null,
      schema.$anchor,
      schema.$dynamicAnchor,
    ])
      if (typeof anchor === "string" && anchor !== "" && !anchors.has(`${base}#${anchor}`))
        anchors.set(`${base}#${anchor}`, node);
    const children: { schema: unknown; path: PropertyKey[]; base: string }[] = [];
    const add = (child: unknown, ...keys: PropertyKey[]) =>
      children.push({ schema: child, path: [...path, ...keys], base });
    for (const key of [...IN_PLACE_ONE, ...INSIDE_ONE]) add(schema[key], key);
    for (const key of [...IN_PLACE_LISTS, ...INSIDE_LISTS]) {
      const list = schema[key];
      if (Array.isArray(list)) for (const [i, child] of list.entries()) add(child, key, i);
    }
    for (const key of [...IN_PLACE_MAPS, ...INSIDE_MAPS, ...HOLDERS]) {
      const map = schema[key];
      if (isSchema(map)) for (const [name, child] of Object.entries(map)) add(child, key, name);
    }
    // Reversed onto the stack, so schemas are met in the order they are written (properties before $defs).
    stack.push(...children.reverse());
  }
  return { nodes, byObject, resources, anchors };
}

/** The schema a reference points at inside the tool's schema, or null when it points elsewhere. */
function target(
  ref: string,
  node: SchemaNode,
  found: ReturnType<typeof schemaNodes>,
): SchemaNode | null {
  const uri = resolveUri(ref, node.base);
  if (uri === null) return null;
  const hash = uri.indexOf("#");
  const resource = hash < 0 ? uri : uri.slice(0, hash);
  const fragment = hash < 0 ? "" : decodeURIComponent(uri.slice(hash + 1));
  const start = found.resources.get(resource);
  if (!start) return null;
  const tokens = pointerTokens(fragment);
  if (tokens === null) return found.anchors.get(`${resource}#${fragment}`) ?? null;
  let at: unknown = start.schema;
  for (const token of tokens) {
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, token)) return null;
    at = (at as Record<string, unknown>)[token];
  }
  return isSchema(at) ? (found.byObject.get(at) ?? null) : null;
}

/** The schemas that apply to the very value a schema applies to, and the reference leading to each. */
function inPlace(
  node: SchemaNode,
  found: ReturnType<typeof schemaNodes>,
): { to: SchemaNode; via: PropertyKey[] }[] {
  const out: { to: SchemaNode; via: PropertyKey[] }[] = [];
  const { schema } = node;
  const add = (child: unknown, ...keys: PropertyKey[]) => {
    const to = isSchema(child) ? found.byObject.get(child) : undefined;
    if (to) out.push({ to, via: keys });
  };
  for (const key of IN_PLACE_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) for (const [i, child] of list.entries()) add(child, key, i);
  }
  for (const key of IN_PLACE_ONE) add(schema[key], key);
  for (const key of IN_PLACE_MAPS) {
    const map = schema[key];
    if (isSchema(map)) for (const [name, child] of Object.entries(map)) add(child, key, name);
  }
  for (const key of REFS) {
    const ref = schema[key];
    if (typeof ref !== "string") continue;
    const to = target(ref, node, found);
    if (to) out.push({ to, via: [key] });
  }
  return out;
}

/** A JSON pointer for a place in a tool's schema, as references write it. */
function pointer(path: readonly PropertyKey[]): string {
  return `#${path.map((k) => `/${String(k).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("")}`;
}

/**
 * A chain of references that comes back to where it started without reaching into the value
 * (`a` → `b` → `a`, or `a: {allOf: [{$ref: a}]}`): validating with it never ends, so ajv
 * overflows the stack. Names the first reference of the cycle and the schemas it passes through;
 * a reference that passes through `properties` or `items` is a recursive schema, and fine.
 */
export function refCycle(schema: unknown, at: string): InputIssue | null {
  const found = schemaNodes(schema);
  const state = new Map<SchemaNode, "open" | "done">();
  for (const start of found.nodes) {
    if (state.has(start)) continue;
    // Depth-first without recursion: each frame is a schema and the next of its edges to follow.
    const frames: { node: SchemaNode; edges: ReturnType<typeof inPlace>; next: number }[] = [
      { node: start, edges: inPlace(start, found), next: 0 },
    ];
    state.set(start, "open");
    while (frames.length > 0) {
      const frame = frames.at(-1) as (typeof frames)[number];
      const edge = frame.edges[frame.next++];
      if (!edge) {
        state.set(frame.node, "done");
        frames.pop();
        continue;
      }
      const seen = state.get(edge.to);
      if (seen === "done") continue;
      if (seen === "open") {
        const from = frames.findIndex((f) => f.node === edge.to);
        const loop = frames.slice(from);
        const first = loop.find((f) => REFS.includes(f.edges[f.next - 1]?.via[0] as never));
        const ref = first ?? frame;
        const via = ref.edges[ref.next - 1]?.via ?? [];
        const chain = [...loop.map((f) => pointer(f.node.path)), pointer(edge.to.path)];
        return {
          path: [at, formatPath([...ref.node.path, ...via])].filter(Boolean).join("."),
          message: `this reference never reaches into the value it checks: ${chain.join(" → ")} comes back to where it started, so checking an argument would never end; let the reference pass through "properties" or "items", or remove it`,
        };
      }
      state.set(edge.to, "open");
      frames.push({ node: edge.to, edges: inPlace(edge.to, found), next: 0 });
    }
  }
  return null;
}

/** The JSON types, `integer` apart from other numbers. */
const TYPES = ["null", "boolean", "object", "array", "number", "integer", "string"] as const;
type JsonType = (typeof TYPES)[number];

/** The types a `type` keyword allows: `number` takes integers too. */
function typesOf(type: unknown): Set<JsonType> | null {
  const names = typeof type === "string" ? [type] : Array.isArray(type) ? type : null;
  if (names === null) return null;
  const out = new Set<JsonType>();
  for (const name of names) {
    if (name === "number") out.add("integer");
    if ((TYPES as readonly unknown[]).includes(name)) out.add(name as JsonType);
  }
  return out;
}

/** Keywords that speak of one type only: a schema holding only these means that type. */
const KEYWORD_TYPES: Record<string, JsonType[]> = {
  minLength: ["string"],
  maxLength: ["string"],
  pattern: ["string"],
  format: ["string"],
  minimum: ["number", "integer"],
  maximum: ["number", "integer"],
  exclusiveMinimum: ["number", "integer"],
  exclusiveMaximum: ["number", "integer"],
  multipleOf: ["number", "integer"],
  minItems: ["array"],
  maxItems: ["array"],
  minProperties: ["object"],
  maxProperties: ["object"],
};

/** A bound on numbers, and the keyword that set it. */
interface Bound {
  value: number;
  strict: boolean;
  keyword: string;
}

/** What a schema and its `allOf` branches ask of one value, gathered together. */
interface Demands {
  types: Set<JsonType> | null;
  /** Where each `type` was written, for the message when they leave no type. */
  typeWords: string[];
  keywordTypes: Set<JsonType>;
  minLength: number;
  maxLength: number;
  low: Bound | null;
  high: Bound | null;
  multipleOf: number[];
  minItems: number;
  maxItems: number;
  minProperties: number;
  maxProperties: number;
  consts: unknown[];
  nothing: string | null;
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** Gathers what a schema asks, with every `allOf` branch inside it (references are not followed). */
function demandsOf(schema: Record<string, unknown>): Demands {
  const d: Demands = {
    types: null,
    typeWords: [],
    keywordTypes: new Set(),
    minLength: 0,
    maxLength: Number.POSITIVE_INFINITY,
    low: null,
    high: null,
    multipleOf: [],
    minItems: 0,
    maxItems: Number.POSITIVE_INFINITY,
    minProperties: 0,
    maxProperties: Number.POSITIVE_INFINITY,
    consts: [],
    nothing: null,
  };
  // A queue, not a stack: branches are read in the order written, and so named in messages.
  const queue: unknown[] = [schema];
  for (let at = 0; at < queue.length; at++) {
    const s = queue[at];
    if (s === false) d.nothing = "an allOf branch is `false`, which no value passes";
    if (!isSchema(s)) continue;
    const types = typesOf(s.type);
    if (types) {
      d.types = d.types ? new Set([...d.types].filter((t) => types.has(t))) : types;
      d.typeWords.push(JSON.stringify(s.type));
    }
    for (const key of Object.keys(KEYWORD_TYPES))
      if (s[key] !== undefined)
        for (const t of KEYWORD_TYPES[key] as JsonType[]) d.keywordTypes.add(t);
    d.minLength = Math.max(d.minLength, num(s.minLength) ?? 0);
    d.maxLength = Math.min(d.maxLength, num(s.maxLength) ?? Number.POSITIVE_INFINITY);
    d.minItems = Math.max(d.minItems, num(s.minItems) ?? 0);
    d.maxItems = Math.min(d.maxItems, num(s.maxItems) ?? Number.POSITIVE_INFINITY);
    d.minProperties = Math.max(d.minProperties, num(s.minProperties) ?? 0);
    d.maxProperties = Math.min(d.maxProperties, num(s.maxProperties) ?? Number.POSITIVE_INFINITY);
    for (const [key, strict] of [
      ["minimum", false],
      ["exclusiveMinimum", true],
    ] as const) {
      const value = num(s[key]);
      if (value !== null && (!d.low || value > d.low.value || (value === d.low.value && strict)))
        d.low = { value, strict, keyword: key };
    }
    for (const [key, strict] of [
      ["maximum", false],
      ["exclusiveMaximum", true],
    ] as const) {
      const value = num(s[key]);
      if (value !== null && (!d.high || value < d.high.value || (value === d.high.value && strict)))
        d.high = { value, strict, keyword: key };
    }
    const step = num(s.multipleOf);
    if (step !== null && step > 0) d.multipleOf.push(step);
    if (Object.hasOwn(s, "const")) d.consts.push(s.const);
    if (s.not === true || (isSchema(s.not) && Object.keys(s.not).length === 0))
      d.nothing = "`not` holds a schema every value passes, so no value passes this one";
    if (Array.isArray(s.type) && s.type.length === 0) d.nothing = "`type: []` allows no type";
    if (Array.isArray(s.allOf)) queue.push(...s.allOf);
  }
  return d;
}

/** Why no value of one type meets the demands, or null when some may. */
function typeRefusal(type: JsonType, d: Demands): string | null {
  if (type === "string" && d.minLength > d.maxLength)
    return `minLength ${d.minLength} is more than maxLength ${d.maxLength}`;
  if (type === "array" && d.minItems > d.maxItems)
    return `minItems ${d.minItems} is more than maxItems ${d.maxItems}`;
  if (type === "object" && d.minProperties > d.maxProperties)
    return `minProperties ${d.minProperties} is more than maxProperties ${d.maxProperties}`;
  if (type !== "number" && type !== "integer") return null;
  const { low, high } = d;
  if (
    low &&
    high &&
    (low.value > high.value || (low.value === high.value && (low.strict || high.strict)))
  )
    return `${low.keyword} ${low.value} and ${high.keyword} ${high.value} leave no number between them`;
  // The first integer (or multiple) above the lower bound must not pass the upper one.
  const step =
    d.multipleOf.length === 0
      ? type === "integer"
        ? 1
        : null
      : d.multipleOf.length === 1
        ? d.multipleOf[0]
        : null;
  if (
    low &&
    high &&
    step !== undefined &&
    step !== null &&
    (type === "number" || Number.isInteger(step))
  ) {
    let first = Math.ceil(low.value / step - 1e-9) * step;
    if (low.strict && Math.abs(first - low.value) < 1e-9) first += step;
    if (high.strict ? first >= high.value - 1e-9 : first > high.value + 1e-9)
      return `no ${step === 1 && d.multipleOf.length === 0 ? "integer" : `multiple of ${step}`} lies between ${low.value} and ${high.value}`;
  }
  return null;
}

/** A check of values against one schema of a tool's schema, in ajv's words. */
export type ValueCheck = (value: unknown) => string[];

/**
 * Whether a schema means the same taken out of its tool's schema with the definitions beside it:
 * every reference in it, and in the definitions, points into `$defs` or `definitions`, and none
 * names a base of its own. A reference to `#` would point at the copy instead, which can make a
 * loop the original does not have.
 */
function movable(schema: Record<string, unknown>, root: Record<string, unknown>): boolean {
  const stack: unknown[] = [schema, root.$defs, root.definitions];
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === null || typeof next !== "object") continue;
    for (const [key, value] of Object.entries(next)) {
      if (key === "$id" || key === "$recursiveRef" || key === "$dynamicRef") return false;
      if (
        key === "$ref" &&
        !(typeof value === "string" && /^#\/(\$defs|definitions)\//.test(value))
      )
        return false;
      stack.push(value);
    }
  }
  return true;
}

/**
 * A check of values against a schema inside a tool's schema, compiled once: the schema with the
 * root's definitions beside it, so its references still resolve. Null when it does not mean the
 * same alone (a reference to the root or its properties), so nothing is claimed about it.
 */
export function valueCheck(
  schema: Record<string, unknown>,
  root: Record<string, unknown>,
): ValueCheck | null {
  // A boolean schema (`true`) says nothing to check; anything else is not a schema at all.
  if (!isSchema(schema)) return null;
  if (checks.has(schema)) return checks.get(schema) ?? null;
  if (!movable(schema, root)) {
    checks.set(schema, null);
    return null;
  }
  const standalone: Record<string, unknown> = {};
  for (const key of ["$schema", "$defs", "definitions"])
    if (root[key] !== undefined) standalone[key] = root[key];
  for (const [key, child] of Object.entries(schema))
    if (key !== "$id")
      Object.defineProperty(standalone, key, { value: child, enumerable: true, writable: true });
  let made: ValueCheck | null = null;
  try {
    const check = argumentCheck(standalone);
    made = (value) => check(value).map((p) => p.replace(/^arguments /, ""));
  } catch {
    // Not checkable alone: nothing is claimed about its values.
  }
  checks.set(schema, made);
  return made;
}

const checks = new WeakMap<object, ValueCheck | null>();

/** What a schema asks of a value that no value can give, or null when some value may pass. */
export function refusal(schema: unknown, root: Record<string, unknown>, depth = 0): string | null {
  if (schema === false) return "its schema is `false`, which no value passes";
  if (!isSchema(schema) || depth > MAX_DEPTH) return null;
  const d = demandsOf(schema);
  if (d.nothing) return d.nothing;
  const distinct = new Set(d.consts.map((c) => JSON.stringify(c)));
  if (distinct.size > 1) return `it must equal ${[...distinct].join(" and ")} at once`;
  if (d.types && d.types.size === 0)
    return `it must be of type ${d.typeWords.join(" and of type ")} at once`;
  // Without a type, keywords of one type only (minLength, maximum…) say which type is meant.
  const meant = d.types ?? (d.keywordTypes.size > 0 ? d.keywordTypes : new Set(TYPES));
  const reasons = new Map<string, JsonType[]>();
  for (const type of meant) {
    const why = typeRefusal(type, d);
    if (why === null) {
      reasons.clear();
      break;
    }
    reasons.set(why, [...(reasons.get(why) ?? []), type]);
  }
  if (reasons.size > 0) return [...reasons.keys()].join("; ");
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const refused = branches.map((b) => refusal(b, root, depth + 1));
    if (refused.every((r) => r !== null))
      return `every branch of ${key} is refused (${refused.map((r, i) => `${i}: ${r}`).join("; ")})`;
  }
  if (d.consts.length > 0) {
    const problems = valueCheck(schema, root)?.(d.consts[0]);
    if (problems && problems.length > 0)
      return `its const ${JSON.stringify(d.consts[0])} fails its own schema: ${problems.join("; ")}`;
  }
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const failing = enumFailures(schema, root);
    if (failing && failing.length === schema.enum.length)
      return `no value of its enum passes its own schema (${failing.join("; ")})`;
  }
  return null;
}

/** The enum values a schema's other keywords refuse, each with why; null when it cannot be checked. */
function enumFailures(
  schema: Record<string, unknown>,
  root: Record<string, unknown>,
): string[] | null {
  const check = valueCheck(schema, root);
  if (check === null) return null;
  const out: string[] = [];
  for (const value of schema.enum as unknown[]) {
    const problems = check(value);
    if (problems.length > 0) out.push(`${JSON.stringify(value)}: ${problems.join(", ")}`);
  }
  return out;
}

/** What a tool's schema asks that no value can give (refused), and enum values it can never take (warned of). */
export interface SchemaFindings {
  problems: InputIssue[];
  warnings: InputIssue[];
}

/**
 * The places in a tool's schema where no value can pass (`minLength` above `maxLength`, `minimum`
 * above `maximum`, a `const` its own `pattern` refuses, `allOf` branches of different types, an
 * enum none of whose values fits), each named by its path; and enum values that can never be
 * used, as warnings. Each property, item and nested property is checked where it sits.
 */
export function schemaFindings(schema: unknown, at: string): SchemaFindings {
  const findings: SchemaFindings = { problems: [], warnings: [] };
  if (!isSchema(schema)) return findings;
  // A loop of references is the finding: no value of such a schema can be checked at all.
  const cycle = refCycle(schema, at);
  if (cycle) return { problems: [cycle], warnings: [] };
  const root = schema;
  const stack: { schema: unknown; path: PropertyKey[]; depth: number }[] = [
    { schema, path: [], depth: 0 },
  ];
  const where = (path: PropertyKey[]) => [at, formatPath(path)].filter(Boolean).join(".");
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { path, depth } = next;
    if (depth > MAX_DEPTH) continue;
    const why = refusal(next.schema, root);
    if (why !== null) {
      findings.problems.push({ path: where(path), message: `no value can pass: ${why}` });
      continue;
    }
    if (!isSchema(next.schema)) continue;
    const s = next.schema;
    if (Array.isArray(s.enum)) {
      const failing = enumFailures(s, root);
      if (failing && failing.length > 0)
        findings.warnings.push({
          path: where([...path, "enum"]),
          message: `${failing.join("; ")}: its own schema refuses ${failing.length === 1 ? "this value" : "these values"}, so no call can use ${failing.length === 1 ? "it" : "them"}`,
        });
    }
    const required = Array.isArray(s.required) ? s.required : [];
    const properties = isSchema(s.properties) ? s.properties : {};
    for (const name of required)
      if (typeof name === "string" && Object.hasOwn(properties, name) && properties[name] === false)
        findings.problems.push({
          path: where([...path, "properties", name]),
          message: `"${name}" is required, but its schema is \`false\`, which no value passes`,
        });
    const children: [unknown, PropertyKey[]][] = [];
    for (const [name, child] of Object.entries(properties))
      if (child !== false) children.push([child, ["properties", name]]);
    if (isSchema(s.items)) children.push([s.items, ["items"]]);
    for (const key of ["prefixItems", "items"])
      if (Array.isArray(s[key]))
        for (const [i, child] of (s[key] as unknown[]).entries()) children.push([child, [key, i]]);
    if (isSchema(s.additionalProperties))
      children.push([s.additionalProperties, ["additionalProperties"]]);
    for (let i = children.length - 1; i >= 0; i--) {
      const [child, keys] = children[i] as [unknown, PropertyKey[]];
      stack.push({ schema: child, path: [...path, ...keys], depth: depth + 1 });
    }
  }
  return findings;
}
