import type {
  CellStatus,
  Coordinate,
  Situation,
  TraceCell,
  TracePicture,
} from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import { situationId } from "../plan.ts";
import { Rng, type Seed } from "../rng.ts";
import { keyOf, wilson } from "../traces/picture.ts";
import { allowed } from "./allowed.ts";

/** How much a cell's status weighs: new failures first, then what still fails, then confirming a fix. */
const STATUS_WEIGHT: Record<CellStatus, number> = {
  new_failure: 2,
  still_failing: 1,
  stopped_failing: 0.5,
  fine: 0,
};

/** Where a share of the rows went, and why. */
export interface BudgetEntry {
  /** `tool × condition × world`, or `exploration` for the rows spread over the plain grid. */
  cell: string;
  rows: number;
  /** The cell's status and figures that earned it these rows. */
  reason: string;
  weight: number;
}

/** A run's rows spent on the cells traces say fail, with a share kept for exploration. */
export interface TraceBudget {
  rows: number;
  entries: BudgetEntry[];
  /** The situations to simulate, in order: the targeted ones, then the exploration walk's. */
  situations: Situation[];
}

/**
 * Spends `rows` where the traces say the agent fails: each failing cell is weighted by the upper
 * end of its failure rate's 95% interval (high when the rate is high, and when the evidence is
 * thin) times its status (a new failure counts double, a fix is checked at half weight), and
 * rows are shared out by largest remainder; `exploration` of them follow the plain grid. A cell's
 * situations are the grid's situations at its tool, condition and world; when the grid has fewer,
 * the nearest grid situation is moved onto the cell and given fresh seeds.
 */
export function traceBudget(
  agent: Agent,
  picture: TracePicture,
  grid: readonly Situation[],
  rows: number,
  options: { exploration?: number; seed?: Seed } = {},
): TraceBudget {
  const exploration = options.exploration ?? 0.1;
  const rng = new Rng(options.seed ?? 0, "trace-budget");
  const targets = picture.cells
    .filter((cell) => cell.status !== "fine" && cell.coordinate.tool !== null)
    .map((cell) => ({ cell, weight: weightOf(cell) }))
    .filter((target) => target.weight > 0);
  const targeted = targets.length === 0 ? 0 : rows - Math.round(rows * exploration);
  const shares = largestRemainder(
    targets.map((target) => target.weight),
    targeted,
  );
  const entries: BudgetEntry[] = [];
  const situations: Situation[] = [];
  const taken = new Set<string>();
  targets.forEach(({ cell, weight }, n) => {
    const count = shares[n] ?? 0;
    if (count === 0) return;
    const made = situationsAt(agent, cell, grid, count, rng, taken);
    situations.push(...made);
    entries.push({
      cell: keyOf(cell.coordinate),
      rows: made.length,
      reason: reasonOf(cell),
      weight,
    });
  });
  const rest = rows - situations.length;
  const walk = grid.filter((situation) => !taken.has(situation.id)).slice(0, rest);
  situations.push(...walk);
  if (walk.length > 0)
    entries.push({
      cell: "exploration",
      rows: walk.length,
      reason: `${targets.length === 0 ? "no failing cell in the traces: " : ""}the plain grid in plan order`,
      weight: 0,
    });
  return { rows: situations.length, entries, situations };
}

function weightOf(cell: TraceCell): number {
  const evidence = cell.current.count > 0 ? cell.current : cell.previous;
  if (evidence.count === 0) return 0;
  const upper = wilson(evidence.failures, evidence.count)[1];
  return STATUS_WEIGHT[cell.status] * upper;
}

function reasonOf(cell: TraceCell): string {
  const figures = (side: TraceCell["current"]) =>
    side.count === 0 ? "no traces" : `${side.failures}/${side.count} failed`;
  return `${cell.status.replace("_", " ")}: ${figures(cell.current)} now, ${figures(cell.previous)} before`;
}

/** Integer shares of `total` proportional to `weights`, the remainders going to the largest fractions (earliest on ties). */
function largestRemainder(weights: readonly number[], total: number): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0 || total === 0) return weights.map(() => 0);
  const exact = weights.map((weight) => (weight / sum) * total);
  const shares = exact.map(Math.floor);
  let left = total - shares.reduce((a, b) => a + b, 0);
  const order = exact
    .map((x, n) => [x - Math.floor(x), n] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, n] of order) {
    if (left-- <= 0) break;
    shares[n] = (shares[n] ?? 0) + 1;
  }
  return shares;
}

/** `count` situations at a cell's tool, condition and world: the grid's own first, then moved and reseeded ones. */
function situationsAt(
  agent: Agent,
  cell: TraceCell,
  grid: readonly Situation[],
  count: number,
  rng: Rng,
  taken: Set<string>,
): Situation[] {
  const { tool, condition, world } = cell.coordinate;
  const matches = (axes: Coordinate) =>
    axes.tool === tool && axes.condition === condition && axes.world === world;
  const out = grid
    .filter((situation) => matches(situation.axes) && !taken.has(situation.id))
    .slice(0, count);
  // The nearest grid situations (most of tool, condition, world in common) carry the rest of the coordinate.
  const near = [...grid]
    .map((situation) => ({
      situation,
      shared:
        Number(situation.axes.tool === tool) * 4 +
        Number(situation.axes.condition === condition) * 2 +
        Number(situation.axes.world === world),
    }))
    .sort((a, b) => b.shared - a.shared || a.situation.cell - b.situation.cell)
    .map(({ situation }) => situation);
  for (let n = 0; out.length < count && near.length > 0; n++) {
    const base = near[n % near.length] as Situation;
    const axes: Coordinate = { ...base.axes, tool: tool as string, condition, world };
    if (!allowed(agent, axes)) {
      if (n > near.length * 4) break;
      continue;
    }
    const seed = rng.uint32();
    out.push({
      id: situationId(agent.hash, axes, seed),
      axes,
      seed,
      cell: base.cell,
      pass: base.pass,
    });
  }
  for (const situation of out) taken.add(situation.id);
  return out;
}
