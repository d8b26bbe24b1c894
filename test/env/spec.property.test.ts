import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { InputError } from "../../env/util/errors.ts";
import { createWorld } from "../../env/world/index.ts";
import { financeSpec, helpdeskSpec, referenceSpec } from "../fixtures/reference-spec.ts";
import { situationOf } from "../fixtures/situations.ts";

// biome-ignore lint/suspicious/noExplicitAny: specs are mutated freely here, as hostile input is.
type Loose = any;

const BASES = [referenceSpec, financeSpec, helpdeskSpec];

/** A generous guard, not a measure: each case takes milliseconds, and a hang would take minutes. */
const BUDGET_MS = 2_000;

/** Every object and array of a value with the path to it, met without recursion. */
function containers(value: unknown): { at: Loose; path: (string | number)[] }[] {
  const out: { at: Loose; path: (string | number)[] }[] = [];
  const stack: { at: unknown; path: (string | number)[] }[] = [{ at: value, path: [] }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { at, path } = next;
    if (at === null || typeof at !== "object") continue;
    out.push({ at, path });
    for (const [key, child] of Object.entries(at))
      stack.push({ at: child, path: [...path, Array.isArray(at) ? Number(key) : key] });
  }
  return out;
}

/** The schemas of parameters and output fields: objects under a `properties` key. */
function propertySchemas(spec: unknown): Loose[] {
  return containers(spec)
    .filter(({ path }) => path.at(-2) === "properties")
    .map(({ at }) => at)
    .filter((at) => !Array.isArray(at));
}

/** Values nested `levels` deep, objects and arrays by turns. */
function nested(levels: number): unknown {
  let value: unknown = "leaf";
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

const SPECIAL = ["__proto__", "constructor", "hasOwnProperty", "prototype", "toString", "valueOf"];
const NEAR_KEYS = [
  "faultRate",
  "condition",
  "polcy",
  "descripton",
  "tool",
  "readonlyHint",
  "seeds",
];
const PATTERNS = [
  "^([a-zA-Z0-9]+\\s?)*$",
  "(a+)+$",
  "\\1(a)",
  "(?=a)b",
  "[",
  "(",
  "^$",
  "a{99999}",
  "^[0-9]{3}$",
  ".*",
  "\\p{L}+",
];
const REFS = [
  "#",
  "#/",
  "#/properties",
  "#/$defs/a",
  "#/$defs/b",
  "http://x/y.json",
  "#anchor",
  "x",
];

/** One change to a spec, as an adversary makes them. */
type Mutation = (spec: Loose, pick: number) => void;

const at = <T>(list: readonly T[], pick: number): T | undefined =>
  list.length === 0 ? undefined : list[pick % list.length];

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  // A key no object of a spec knows, near a known one or not, anywhere.
  fc.tuple(fc.constantFrom(...NEAR_KEYS, ...SPECIAL, "x-note"), fc.jsonValue({ maxDepth: 2 })).map(
    ([key, value]): Mutation =>
      (spec, pick) => {
        const target = at(
          containers(spec).filter(({ at }) => !Array.isArray(at)),
          pick,
        );
        if (target)
          Object.defineProperty(target.at, key, {
            value,
            enumerable: true,
            writable: true,
            configurable: true,
          });
      },
  ),
  // Nesting thousands deep, where schemas hold free values or anywhere else.
  fc
    .tuple(
      fc.constantFrom("examples", "x-meta", "default", "properties", "items", "const"),
      fc.integer({ min: 1, max: 3_000 }),
    )
    .map(
      ([key, levels]): Mutation =>
        (spec, pick) => {
          const target = at(propertySchemas(spec), pick) ?? at(containers(spec), pick)?.at;
          if (target && !Array.isArray(target)) target[key] = nested(levels);
        },
    ),
  // A parameter renamed to a name objects already hold, or to an id's name full of regex marks.
  fc.constantFrom(...SPECIAL, "a(b_id", "x[_id", "*_number", "order.id", "$_code", "?_ids").map(
    (name): Mutation =>
      (spec, pick) => {
        const holder = at(
          containers(spec).filter(({ path }) => path.at(-1) === "properties"),
          pick,
        );
        const from = holder ? at(Object.keys(holder.at), pick) : undefined;
        if (!holder || from === undefined) return;
        const value = holder.at[from];
        delete holder.at[from];
        Object.defineProperty(holder.at, name, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      },
  ),
  // A pattern only a backtracking engine runs, or none at all.
  fc.constantFrom(...PATTERNS).map(
    (pattern): Mutation =>
      (spec, pick) => {
        const schema = at(propertySchemas(spec), pick);
        if (schema) schema.pattern = pattern;
      },
  ),
  // Bounds, lengths and closed sets, contradictory or not.
  fc
    .tuple(
      fc.constantFrom(
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
        "multipleOf",
        "const",
        "enum",
        "type",
        "format",
        "allOf",
      ),
      fc.oneof(
        fc.integer({ min: -5, max: 100 }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.constantFrom("string", "integer", "boolean", "object", "email", "date", "uuid", "ipv6"),
        fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 4 }),
        fc.constant([{ type: "string" }, { type: "integer" }]),
      ),
    )
    .map(
      ([key, value]): Mutation =>
        (spec, pick) => {
          const schema = at(propertySchemas(spec), pick);
          if (schema) schema[key] = value;
        },
    ),
  // Statuses written as any text: brackets, regex marks, a page long.
  fc
    .array(fc.oneof(fc.constantFrom("in (progress", "a[", "ok*", "done"), fc.string()), {
      minLength: 1,
      maxLength: 4,
    })
    .map(
      (statuses): Mutation =>
        (spec, pick) => {
          const schema = at(propertySchemas(spec), pick);
          const holder = at(
            containers(spec).filter(({ path }) => path.at(-1) === "properties"),
            pick,
          );
          if (holder && !Array.isArray(holder.at))
            holder.at.status = { type: "string", enum: statuses };
          if (schema) schema.enum = statuses;
        },
    ),
  // References to anywhere, and to each other.
  fc.constantFrom(...REFS).map(
    (ref): Mutation =>
      (spec, pick) => {
        const schema = at(propertySchemas(spec), pick);
        const tool = at(
          containers(spec).filter(({ path }) =>
            /^(parameters|inputSchema)$/.test(String(path.at(-1))),
          ),
          pick,
        );
        if (schema) schema.$ref = ref;
        if (tool && !Array.isArray(tool.at))
          tool.at.$defs = {
            a: { $ref: "#/$defs/b" },
            b: pick % 2 ? { $ref: "#/$defs/a" } : { type: "string" },
          };
      },
  ),
  // A value of the wrong type anywhere.
  fc.jsonValue({ maxDepth: 2 }).map(
    (value): Mutation =>
      (spec, pick) => {
        const target = at(containers(spec), pick);
        const key = target ? at(Object.keys(target.at), pick >> 3) : undefined;
        if (target && key !== undefined) target.at[key] = value;
      },
  ),
  // A key removed.
  fc.constant<Mutation>((spec, pick) => {
    const target = at(containers(spec), pick);
    const key = target ? at(Object.keys(target.at), pick >> 3) : undefined;
    if (target && key !== undefined) delete target.at[key];
  }),
  // Huge strings: a description, a rule, the prompt, the whole policy.
  fc
    .tuple(
      fc.constantFrom("[a](", "x", " ", "# ", "- a\n", "Refund it. "),
      fc.integer({ min: 1_000, max: 100_000 }),
    )
    .map(
      ([unit, length]): Mutation =>
        (spec, pick) => {
          const huge = unit.repeat(Math.ceil(length / unit.length));
          const strings = containers(spec).flatMap(({ at }) =>
            Object.keys(at)
              .filter((k) => typeof at[k] === "string")
              .map((k) => ({ at, k })),
          );
          const target = at(strings, pick);
          if (pick % 3 === 0) spec.policy = huge;
          else if (target) target.at[target.k] = huge;
        },
    ),
);

describe("Agent.from on specs an adversary writes (property)", () => {
  it("returns an Agent or refuses with every problem at a path, quickly, never another error; the world it builds answers", () => {
    fc.assert(
      fc.property(
        fc.nat(BASES.length - 1),
        fc.array(fc.tuple(mutation, fc.nat()), { minLength: 1, maxLength: 3 }),
        (base, mutations) => {
          const spec: Loose = JSON.parse(JSON.stringify(BASES[base]));
          for (const [mutate, pick] of mutations) mutate(spec, pick);
          const started = performance.now();
          let agent: Agent | null = null;
          try {
            agent = Agent.from(spec);
          } catch (error) {
            expect(error, (error as Error).stack).toBeInstanceOf(InputError);
            const { issues } = error as InputError;
            expect(issues.length).toBeGreaterThan(0);
            for (const issue of issues) {
              expect(typeof issue.path).toBe("string");
              expect(issue.message.length).toBeGreaterThan(0);
            }
          }
          if (agent) {
            // A spec accepted builds a world, or is refused for ids it cannot make; every call answers.
            try {
              const world = createWorld({ spec: agent, situation: situationOf(agent, {}) });
              for (const tool of agent.tools) {
                const answer = world.call(tool.name, { ...world.person.ids });
                expect(typeof answer.content).toBe("string");
              }
            } catch (error) {
              expect(error, (error as Error).stack).toBeInstanceOf(InputError);
            }
          }
          expect(performance.now() - started).toBeLessThan(BUDGET_MS);
        },
      ),
      { numRuns: 200, seed: 12, endOnFailure: true },
    );
  });
});
