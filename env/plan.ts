import {
  AXIS_NAMES,
  type AxisName,
  type ConditionKind,
  type Coordinate,
  type Coverage,
  DEFAULTS,
  type ForbiddenPair,
  LIMITS,
  type PlanOptions,
  PlanOptionsSchema,
  type Situation,
  type ToolDefinition,
} from "../spec/index.ts";
import { Agent } from "./agent.ts";
import { coordinateOf } from "./axes.ts";
import { PairwiseCounter } from "./coverage.ts";
import { type CoveringArray, coverageOrder, coveringArrayOver, MinHeap } from "./covering/index.ts";
import type { PolicyReading } from "./policy/index.ts";
import { Rng, type Seed } from "./rng.ts";
import { InputError, issuesOf, SpecError } from "./util/errors.ts";
import { canonicalJson, sha256 } from "./util/hash.ts";
import { WorldModel } from "./world/model.ts";

/** The flip's effect over the whole run: how many fault cells were visited and how many kept their fault. */
export interface FlipReport {
  prefer_success: boolean;
  fault_rate: number;
  fault_cells: number;
  kept: number;
  flipped: number;
  /** Fault kinds that stayed in the run, in axis order. */
  kinds_kept: ConditionKind[];
}

/** What the planner built and what a run of `rows` situations will visit. */
export interface Plan {
  spec_hash: string;
  seed: Seed;
  rows: number;
  axes: Record<AxisName, string[]>;
  grid: {
    rows: number;
    lower_bound: number;
    greedy_rows: number;
    pairs_planned: number;
    pairs_forbidden: number;
    /** Pairs ruled out only because other forbidden pairs leave no valid situation holding them. */
    implied_conflicts: ForbiddenPair[];
    /** The planned covering array, before the cold-start flip. */
    cells: Coordinate[];
  };
  flip: FlipReport;
  /** Passes over the grid the run makes (later passes use fresh seeds). */
  passes: number;
  /** The policy as read: rules with their scope and why, passages set aside, who needs a yes. */
  policy: PolicyReading;
  /** Every tool's role (situation, utility, hand-off), its access, and what told us. */
  tools: ToolReading[];
  /**
   * What the spec asks that some calls can never meet (`path: why`), as the run's `warnings` will
   * carry them: a run still works, but a person should read these first.
   */
  warnings: string[];
  /** The situations to run, in order. */
  cells: Situation[];
  /** Coverage of what those situations visit. */
  coverage: Coverage;
}

/** How a tool was read: its role and access, and where each came from. */
export interface ToolReading {
  name: string;
  role: ToolDefinition["role"];
  role_source: ToolDefinition["role_source"];
  access: ToolDefinition["access"];
  access_source: ToolDefinition["access_source"];
}

/** What a walk over the grid did: its flip, its passes, and the coverage of what it visited. */
export interface WalkSummary {
  flip: FlipReport;
  passes: number;
  coverage: Coverage;
}

/**
 * A run's plan before it is walked: the options resolved against the spec's world dials, and the
 * pairwise covering array over the six axes. {@link Planner.walk} yields the run's situations one
 * at a time, so a long run never holds them all.
 */
export class Planner {
  readonly agent: Agent;
  readonly seed: Seed;
  readonly rows: number;
  readonly faultRate: number;
  readonly preferSuccess: boolean;
  readonly grid: CoveringArray;
  readonly #space: PairwiseCounter;

  constructor(spec: unknown, options: PlanOptions = {}) {
    this.agent = Agent.from(spec);
    refuseLargeAxes(this.agent);
    // The model every world of the run is built on: a spec whose ids no world can make is refused
    // here, by path, so a plan says so as a run would, and a run before any row.
    WorldModel.of(this.agent);
    const parsed = PlanOptionsSchema.safeParse(options);
    if (!parsed.success) throw new InputError("plan options", issuesOf(parsed.error, options));
    const agent = this.agent;
    // An option given beats the spec's world dial, which beats the default.
    this.seed = parsed.data.seed ?? agent.world.seed ?? DEFAULTS.seed;
    this.faultRate = parsed.data.faultRate ?? agent.world.fault_rate ?? DEFAULTS.faultRate;
    this.preferSuccess =
      parsed.data.preferSuccess ?? agent.world.prefer_success ?? DEFAULTS.preferSuccess;
    this.#space = new PairwiseCounter(agent);
    if (this.#space.reach.targetCount === 0) {
      throw new SpecError("agent spec", [
        { path: "axes.forbid", message: "the forbidden pairs leave no situation possible" },
      ]);
    }
    refuseLargeGrid(this.#space);
    this.grid = coveringArrayOver(this.#space.space, this.#space.reach, {
      seed: this.seed,
      effort: parsed.data.effort ?? DEFAULTS.effort,
    });
    this.rows = parsed.data.rows ?? this.grid.rows.length;
  }

  /** The run's situations in order, made as they are asked for; returns what the walk did. */
  *walk(): Generator<Situation, WalkSummary> {
    const { agent, seed, rows } = this;
    const counter = this.#space.fresh();
    const walk = new Walk(counter, this.grid.rows, this.preferSuccess ? this.faultRate : null);
    let made = 0;
    let passes = 0;
    while (made < rows) {
      for (const step of walk.pass()) {
        if (made === rows) break;
        const axes = coordinateOf(agent.axes, step.row);
        const cellSeed = new Rng(seed, "situation", String(passes), String(step.cell)).uint32();
        const situation: Situation = {
          id: situationId(agent.hash, axes, cellSeed),
          axes,
          seed: cellSeed,
          cell: step.cell,
          pass: passes,
        };
        if (step.flippedFrom !== undefined) situation.flipped_from = step.flippedFrom;
        walk.visit(step);
        counter.visit(step.row);
        made++;
        yield situation;
      }
      passes++;
    }
    return {
      flip: walk.report(this.preferSuccess, this.faultRate),
      passes,
      coverage: { pairwise: counter.result() },
    };
  }

  /**
   * What {@link Planner.walk} returns, without making a situation. A pass is decided by which
   * pairs earlier passes visited none, one or several times; once a pass leaves that unchanged,
   * every later pass plays the same way, so the full passes still to come are counted at once and
   * ten million rows take as long as a few passes.
   */
  summary(): WalkSummary {
    const counter = this.#space.fresh();
    const walk = new Walk(counter, this.grid.rows, this.preferSuccess ? this.faultRate : null);
    const size = this.grid.rows.length;
    let made = 0;
    let passes = 0;
    while (made < this.rows) {
      const before = walk.signature();
      const steps = walk.pass();
      const taken = steps.slice(0, this.rows - made);
      for (const step of taken) {
        walk.visit(step);
        counter.visit(step.row);
      }
      made += taken.length;
      passes++;
      if (made < this.rows && walk.signature().every((v, p) => v === before[p])) {
        const repeats = Math.floor((this.rows - made) / size);
        for (const step of steps) walk.visit(step, repeats);
        made += repeats * size;
        passes += repeats;
      }
    }
    return {
      flip: walk.report(this.preferSuccess, this.faultRate),
      passes,
      coverage: { pairwise: counter.result() },
    };
  }
}

/** The most situations {@link planSituations} lists: a longer run is described by {@link describePlan} and walked by {@link Planner.walk}. */
export const MAX_LISTED_SITUATIONS = 100_000;

/** A plan without its situations: everything {@link planSituations} says about a run but the list. */
export type PlanSummary = Omit<Plan, "cells">;

/**
 * Plans the situations of a run: a pairwise covering array over the six axes, the cold-start flip
 * (most fault cells turned to `ok`, keeping one per fault kind and those that keep the most pairs),
 * and a walk of `rows` situations over it, repeated with fresh seeds when `rows` exceeds the grid.
 * It lists every situation, so it takes at most {@link MAX_LISTED_SITUATIONS} rows.
 *
 * @example
 * const { cells, coverage } = planSituations(spec, { rows: 64, seed: 7 });
 * console.log(cells.length, coverage.pairwise.pairs_covered, "/", coverage.pairwise.pairs_planned);
 */
export function planSituations(spec: unknown, options: PlanOptions = {}): Plan {
  const planner = new Planner(spec, options);
  if (planner.rows > MAX_LISTED_SITUATIONS)
    throw new InputError("plan options", [
      {
        path: "rows",
        message: `a plan that lists its situations takes at most ${MAX_LISTED_SITUATIONS} rows, got ${planner.rows}; describePlan summarises up to ${LIMITS.rows}, and Planner.walk makes them one at a time`,
      },
    ]);
  const cells: Situation[] = [];
  const walk = planner.walk();
  let next = walk.next();
  while (!next.done) {
    cells.push(next.value);
    next = walk.next();
  }
  const { coverage, ...rest } = planOf(planner, next.value);
  return { ...rest, cells, coverage };
}

/**
 * What {@link planSituations} says about a run but the situations themselves: the grid, the flip,
 * the passes and the coverage, for up to `LIMITS.rows` rows without making one situation.
 *
 * @example
 * const { passes, coverage } = describePlan(spec, { rows: 1_000_000 });
 */
export function describePlan(spec: unknown, options: PlanOptions = {}): PlanSummary {
  const planner = new Planner(spec, options);
  return planOf(planner, planner.summary());
}

/** The plan's account of itself, from its planner and what a walk over it did. */
function planOf(planner: Planner, summary: WalkSummary): PlanSummary {
  const { agent, grid } = planner;
  const name = (axis: number, value: number) =>
    (agent.axes[AXIS_NAMES[axis] as AxisName][value] as { name: string }).name;
  return {
    spec_hash: agent.hash,
    seed: planner.seed,
    rows: planner.rows,
    axes: Object.fromEntries(
      AXIS_NAMES.map((a) => [a, agent.axes[a].map((v) => v.name)]),
    ) as Record<AxisName, string[]>,
    grid: {
      rows: grid.rows.length,
      lower_bound: grid.lowerBound,
      greedy_rows: grid.greedyRows,
      pairs_planned: grid.pairsTarget,
      pairs_forbidden: grid.pairsForbidden,
      implied_conflicts: grid.impliedConflicts.map((p) => ({
        [AXIS_NAMES[p.axisA] as AxisName]: name(p.axisA, p.valueA),
        [AXIS_NAMES[p.axisB] as AxisName]: name(p.axisB, p.valueB),
      })),
      cells: grid.rows.map((row) => coordinateOf(agent.axes, row)),
    },
    flip: summary.flip,
    passes: summary.passes,
    policy: agent.policy,
    tools: agent.tools.map(({ name, role, role_source, access, access_source }) => ({
      name,
      role,
      role_source,
      access,
      access_source,
    })),
    warnings: [...agent.warnings],
    coverage: summary.coverage,
  };
}

/** Where the values of each axis come from in a spec, to name what makes a plan too large. */
const AXIS_SOURCES: Record<AxisName, { field: string; what: string }> = {
  tool: { field: "tools", what: "tools" },
  rule: { field: "policy", what: "rules" },
  stance: { field: "axes.stances", what: "stances" },
  world: { field: "axes.worlds", what: "worlds" },
  condition: { field: "axes.conditions", what: "conditions" },
  history: { field: "axes.histories", what: "histories" },
};

/**
 * Refuses, by the field that makes them, axes with more values than `LIMITS.axisValues`: the
 * covering array weighs every value of every axis for each row it adds, so 10,000 rules planned
 * for hours. Checked before anything is built from the axes.
 */
function refuseLargeAxes(agent: Agent): void {
  const issues = AXIS_NAMES.filter((axis) => agent.axes[axis].length > LIMITS.axisValues).map(
    (axis) => {
      const { field, what } = AXIS_SOURCES[axis];
      return {
        path: field,
        message: `${agent.axes[axis].length} ${what} make as many values of the ${axis} axis; a plan takes at most ${LIMITS.axisValues} (the grid pairs every value with those of the other axes)`,
      };
    },
  );
  if (issues.length > 0) throw new SpecError("agent spec", issues);
}

/**
 * Refuses a plan whose smallest grid has more than `LIMITS.gridRows` rows: every pair of values of
 * two axes that may meet needs a row of its own, and planning takes time about the square of the
 * rows. Named by the two axes that make it.
 */
function refuseLargeGrid(counter: PairwiseCounter): void {
  const { space, reach } = counter;
  for (let i = 0; i < AXIS_NAMES.length; i++) {
    for (let j = i + 1; j < AXIS_NAMES.length; j++) {
      const { start, count } = space.block(i, j);
      let needed = 0;
      for (let p = start; p < start + count; p++) needed += reach.target[p] as number;
      if (needed <= LIMITS.gridRows) continue;
      const [a, b] = [AXIS_NAMES[i] as AxisName, AXIS_NAMES[j] as AxisName];
      throw new SpecError("agent spec", [
        {
          path: `${AXIS_SOURCES[a].field} × ${AXIS_SOURCES[b].field}`,
          message: `${needed} pairs of ${AXIS_SOURCES[a].what} and ${AXIS_SOURCES[b].what} may meet, and each needs a situation of its own; a plan takes at most ${LIMITS.gridRows} (fewer values, or rules scoped to the tools they concern)`,
        },
      ]);
    }
  }
}

/** A situation's stable id: the same spec, coordinate and seed always give the same id. */
export function situationId(specHash: string, axes: Coordinate, seed: number): string {
  return `sit_${sha256(canonicalJson({ spec: specHash, axes, seed })).slice(0, 16)}`;
}

interface Step {
  cell: number;
  row: number[];
  flippedFrom?: ConditionKind;
}

const CONDITION = AXIS_NAMES.indexOf("condition");

/**
 * Walks the grid pass by pass. Each pass decides its own flip and order against the pairs earlier
 * passes already visited, so a second pass keeps different fault cells and coverage keeps growing.
 */
class Walk {
  readonly #counter: PairwiseCounter;
  readonly #grid: number[][];
  readonly #faultRate: number | null;
  readonly #ok: number;
  /** How many visited situations hold each pair. */
  readonly #visited: Int32Array;
  #faultCells = 0;
  #kept = 0;
  readonly #kindsKept = new Set<number>();

  constructor(counter: PairwiseCounter, grid: number[][], faultRate: number | null) {
    this.#counter = counter;
    this.#grid = grid;
    this.#faultRate = faultRate;
    this.#ok = counter.agent.axes.condition.findIndex((v) => v.name === "ok");
    this.#visited = new Int32Array(counter.space.size);
  }

  /** The steps of one pass, flipped and ordered. */
  pass(): Step[] {
    const rows = this.#grid.map((row) => row.slice());
    const flipped =
      this.#faultRate === null ? new Map<number, number>() : this.#flip(rows, this.#faultRate);
    return this.#order(rows).map((cell) => {
      const step: Step = { cell, row: rows[cell] as number[] };
      const from = flipped.get(cell);
      if (from !== undefined) step.flippedFrom = this.#conditionName(from);
      return step;
    });
  }

  /** Counts a step as visited, `times` times over. */
  visit(step: Step, times = 1): void {
    const condition = step.row[CONDITION] as number;
    if (condition !== this.#ok || step.flippedFrom !== undefined) {
      this.#faultCells += times;
      if (step.flippedFrom === undefined) {
        this.#kept += times;
        if (times > 0) this.#kindsKept.add(condition);
      }
    }
    bump(this.#visited, this.#pairsOf(step.row), times);
  }

  /**
   * What the next pass is decided by: for each pair, whether visited situations held it never,
   * once or more often (the flip and the order compare visit counts only with 0 and 1).
   */
  signature(): Uint8Array {
    return Uint8Array.from(this.#visited, (count) => Math.min(count, 2));
  }

  report(preferSuccess: boolean, faultRate: number): FlipReport {
    return {
      prefer_success: preferSuccess,
      fault_rate: faultRate,
      fault_cells: this.#faultCells,
      kept: this.#kept,
      flipped: this.#faultCells - this.#kept,
      kinds_kept: [...this.#kindsKept].sort((a, b) => a - b).map((c) => this.#conditionName(c)),
    };
  }

  /**
   * Turns fault cells to `ok`, keeping `faultRate` of them (at least one per fault kind): first the
   * best cell of each kind, then the best of any kind, "best" being the cell whose fault recovers
   * the most pairs that would otherwise go unvisited. Returns flipped cell → its planned fault.
   */
  #flip(rows: number[][], faultRate: number): Map<number, number> {
    const counts = this.#visited.slice();
    for (const row of rows) bump(counts, this.#pairsOf(row), 1);
    const faults = rows.flatMap((row, cell) =>
      (row[CONDITION] as number) === this.#ok ? [] : [cell],
    );
    const flipped = new Map<number, number>();
    for (const cell of faults) {
      const row = rows[cell] as number[];
      const fault = row[CONDITION] as number;
      if (!this.#fitsOk(row)) continue;
      this.#setCondition(row, this.#ok, counts);
      flipped.set(cell, fault);
    }
    const kinds = [...new Set(faults.map((cell) => this.#faultOf(rows, flipped, cell)))].sort(
      (a, b) => a - b,
    );
    const quota = Math.min(
      faults.length,
      Math.max(kinds.length, Math.round(faultRate * faults.length)),
    );
    let kept = faults.length - flipped.size;
    const restore = (candidates: number[]) => {
      let best = -1;
      let bestGain = Number.NEGATIVE_INFINITY;
      for (const cell of candidates) {
        const gain = this.#restoreGain(rows[cell] as number[], flipped.get(cell) as number, counts);
        if (gain > bestGain) {
          bestGain = gain;
          best = cell;
        }
      }
      if (best < 0) return;
      this.#setCondition(rows[best] as number[], flipped.get(best) as number, counts);
      flipped.delete(best);
      kept++;
    };
    for (const kind of kinds) {
      const keptOfKind = faults.some(
        (cell) => !flipped.has(cell) && (rows[cell] as number[])[CONDITION] === kind,
      );
      if (!keptOfKind)
        restore(
          [...flipped.keys()].filter((cell) => flipped.get(cell) === kind).sort((a, b) => a - b),
        );
    }
    // The same choice as restoring over every flipped cell each time, without rescanning them:
    // restoring a cell only lowers the others' gains, so each waits in a heap under the gain last
    // computed and is re-filed when it surfaces with a lower one (O(cells · log cells), not O(cells²)).
    const key = (cell: number, gain: number) => (AXIS_NAMES.length - gain) * rows.length + cell;
    const gainOf = (cell: number) =>
      this.#restoreGain(rows[cell] as number[], flipped.get(cell) as number, counts);
    const waiting = new MinHeap();
    for (const cell of flipped.keys()) waiting.push(key(cell, gainOf(cell)));
    while (kept < quota && waiting.size > 0) {
      const filed = waiting.peek();
      waiting.pop();
      const cell = filed % rows.length;
      const gain = gainOf(cell);
      if (filed !== key(cell, gain)) {
        waiting.push(key(cell, gain));
        continue;
      }
      this.#setCondition(rows[cell] as number[], flipped.get(cell) as number, counts);
      flipped.delete(cell);
      kept++;
    }
    return flipped;
  }

  /** Orders cells so that every prefix of the walk visits as many new pairs as it can. */
  #order(rows: number[][]): number[] {
    return coverageOrder({
      pairs: rows.map((row) => this.#pairsOf(row)),
      target: this.#counter.reach.target,
      seen: this.#visited,
      // With the cold-start flip on, kept fault cells are spread through the walk in proportion, so
      // a run shorter than the grid keeps the fault share it asked for instead of front-loading faults.
      faults:
        this.#faultRate === null
          ? undefined
          : Uint8Array.from(rows, (row) => ((row[CONDITION] as number) === this.#ok ? 0 : 1)),
    });
  }

  /** Pairs the fault would add to the visited set, minus `ok` pairs that only this cell holds. */
  #restoreGain(row: number[], fault: number, counts: Int32Array): number {
    const { space } = this.#counter;
    let gain = 0;
    for (let j = 0; j < AXIS_NAMES.length; j++) {
      if (j === CONDITION) continue;
      if (counts[space.index(CONDITION, fault, j, row[j] as number)] === 0) gain++;
      if (counts[space.index(CONDITION, this.#ok, j, row[j] as number)] === 1) gain--;
    }
    return gain;
  }

  #setCondition(row: number[], condition: number, counts: Int32Array): void {
    bump(counts, this.#pairsOf(row, CONDITION), -1);
    row[CONDITION] = condition;
    bump(counts, this.#pairsOf(row, CONDITION), 1);
  }

  #fitsOk(row: number[]): boolean {
    const probe = Int32Array.from(row);
    probe[CONDITION] = -1;
    return this.#counter.space.fits(probe, CONDITION, this.#ok);
  }

  #faultOf(rows: number[][], flipped: Map<number, number>, cell: number): number {
    return flipped.get(cell) ?? ((rows[cell] as number[])[CONDITION] as number);
  }

  #conditionName(index: number): ConditionKind {
    return (this.#counter.agent.axes.condition[index] as { name: ConditionKind }).name;
  }

  /** The pairs of a row, or only those that involve axis `only`. */
  #pairsOf(row: readonly number[], only?: number): number[] {
    const { space } = this.#counter;
    const pairs: number[] = [];
    for (let i = 0; i < AXIS_NAMES.length; i++) {
      for (let j = i + 1; j < AXIS_NAMES.length; j++) {
        if (only === undefined || i === only || j === only)
          pairs.push(space.index(i, row[i] as number, j, row[j] as number));
      }
    }
    return pairs;
  }
}

function bump(counts: Int32Array, pairs: readonly number[], step: number): void {
  for (const p of pairs) counts[p] = (counts[p] as number) + step;
}
