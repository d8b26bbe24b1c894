import {
  AXIS_NAMES,
  type AxesOverride,
  type AxisName,
  CONDITIONS,
  type Coordinate,
  DEFAULT_HISTORIES,
  DEFAULT_STANCES,
  type ForbiddenPair,
  type NamedValue,
  type Rule,
  type ToolDefinition,
  WORLDS,
} from "../spec/index.ts";
import type { ValuePair } from "./covering/index.ts";
import type { InputIssue } from "./util/errors.ts";
import { lookup } from "./util/lookup.ts";

/** One value of an axis, with the prose that writers and people are given. */
export type AxisValue = NamedValue;

/** The six axes of a spec, in grid column order, each a list of named values. */
export type Axes = Record<AxisName, AxisValue[]>;

/** The value a spec with no policy rules gets on the rule axis. */
export const NO_RULE: AxisValue = {
  name: "none",
  description: "no particular policy rule in focus",
};

/** Axes and forbidden pairs built from a spec, or the problems that stop them being built. */
export interface AxesResult {
  axes: Axes;
  /** Pairs of values that never share a situation: the spec's own and those implied by rule scopes. */
  forbidden: ForbiddenPair[];
  issues: InputIssue[];
}

/**
 * Builds the six axes: tools and rules from the spec, and stance, world, condition and history from
 * the defaults or the spec's overrides. A rule scoped to some tools is never paired with the others.
 */
export function buildAxes(
  tools: ToolDefinition[],
  rules: Rule[],
  override: AxesOverride = {},
): AxesResult {
  const issues: InputIssue[] = [];
  const axes: Axes = {
    tool: tools.map((t) => ({ name: t.name, description: t.description || `the ${t.name} tool` })),
    rule: rules.length > 0 ? rules.map((r) => ({ name: r.id, description: r.text })) : [NO_RULE],
    stance: named("stances", override.stances, DEFAULT_STANCES),
    world: (override.worlds ?? keysOf(WORLDS)).map((w) => ({ name: w, description: WORLDS[w] })),
    condition: (override.conditions ?? keysOf(CONDITIONS)).map((c) => ({
      name: c,
      description: CONDITIONS[c],
    })),
    history: named("histories", override.histories, DEFAULT_HISTORIES),
  };
  // A tool that every rule's scope leaves out still needs situations: it gets the rule value `none`.
  const unruled =
    rules.length > 0 && tools.some((t) => rules.every((r) => r.tools && !r.tools.includes(t.name)));
  if (unruled) axes.rule.push(NO_RULE);
  const forbidden: ForbiddenPair[] = [];
  (override.forbid ?? []).forEach((pair, n) => {
    for (const [axis, value] of Object.entries(pair) as [AxisName, string][]) {
      if (!axes[axis].some((v) => v.name === value)) {
        issues.push({
          path: `axes.forbid[${n}].${axis}`,
          message: `"${value}" is not a ${axis} of this spec; expected one of ${list(axes[axis])}`,
        });
      }
    }
    forbidden.push(pair);
  });
  for (const rule of rules) {
    if (!rule.tools) continue;
    for (const tool of tools)
      if (!rule.tools.includes(tool.name)) forbidden.push({ tool: tool.name, rule: rule.id });
  }
  return { axes, forbidden, issues };
}

/** Level count of each axis, in column order. */
export function levelsOf(axes: Axes): number[] {
  return AXIS_NAMES.map((name) => axes[name].length);
}

/** Forbidden pairs as axis and value indexes, for the covering array. */
export function valuePairsOf(axes: Axes, forbidden: readonly ForbiddenPair[]): ValuePair[] {
  return forbidden.map((pair) => {
    const [[axisA, a], [axisB, b]] = Object.entries(pair) as [
      [AxisName, string],
      [AxisName, string],
    ];
    return {
      axisA: AXIS_NAMES.indexOf(axisA),
      valueA: axes[axisA].findIndex((v) => v.name === a),
      axisB: AXIS_NAMES.indexOf(axisB),
      valueB: axes[axisB].findIndex((v) => v.name === b),
    };
  });
}

/** A grid row of value indexes as a named coordinate. */
export function coordinateOf(axes: Axes, row: readonly number[]): Coordinate {
  const value = (axis: AxisName, n: number) => (axes[axis][row[n] as number] as AxisValue).name;
  return {
    tool: value("tool", 0),
    rule: value("rule", 1),
    stance: value("stance", 2),
    world: value("world", 3) as Coordinate["world"],
    condition: value("condition", 4) as Coordinate["condition"],
    history: value("history", 5),
  };
}

/** A named coordinate as value indexes; throws if a value is not on its axis. */
export function rowOf(axes: Axes, coordinate: Coordinate): number[] {
  return AXIS_NAMES.map((axis) => {
    const n = axes[axis].findIndex((v) => v.name === coordinate[axis]);
    if (n < 0)
      throw new RangeError(
        `"${coordinate[axis]}" is not a ${axis} of this spec; expected one of ${list(axes[axis])}`,
      );
    return n;
  });
}

function named(
  field: "stances" | "histories",
  given: (string | NamedValue)[] | undefined,
  defaults: Record<string, string>,
): AxisValue[] {
  if (!given) return Object.entries(defaults).map(([name, description]) => ({ name, description }));
  return given.map((v) => {
    if (typeof v !== "string") return v;
    // A name of our own keeps its description; a name of the user's is described from its words.
    return { name: v, description: lookup(defaults, v) ?? describeName(field, v) };
  });
}

/** "upset" → "comes across as upset"; "first_contact" → "first contact". */
function describeName(field: "stances" | "histories", name: string): string {
  const words = name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/[_.-]+/g, " ")
    .toLowerCase()
    .trim();
  return field === "stances" ? `comes across as ${words}` : words;
}

function keysOf<T extends object>(o: T): (keyof T & string)[] {
  return Object.keys(o) as (keyof T & string)[];
}

function list(values: AxisValue[]): string {
  return values.map((v) => v.name).join(", ");
}
