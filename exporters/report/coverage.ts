import { type Agent, PairwiseCounter } from "../../env/index.ts";
import { AXIS_NAMES, type AxisName, type Row } from "../../spec/index.ts";

/** One value pair of two axes: whether the grid plans it, and how many rows touched it. */
export interface PairCell {
  planned: boolean;
  rows: number;
}

/** Two axes of the grid: the value pairs it plans, those the rows touched, and each pair's cell. */
export interface AxisPair {
  a: AxisName;
  b: AxisName;
  valuesA: string[];
  valuesB: string[];
  planned: number;
  touched: number;
  /** `cells[x][y]` for value x of `a` and value y of `b`. */
  cells: PairCell[][];
}

/** The pairwise heatmap: every pair of axes, and the rows whose situation is not on the spec's grid. */
export interface PairHeatmap {
  pairs: AxisPair[];
  offGrid: number;
}

/**
 * Planned against touched, per pair of axes: the planned value pairs are those the engine's pair
 * counter targets (every pair minus forbidden and unreachable ones), touched those the rows hold.
 */
export function pairHeatmap(
  agent: Agent,
  rows: readonly { situation: Pick<Row["situation"], "axes"> }[],
): PairHeatmap {
  const { space, reach } = new PairwiseCounter(agent);
  const valueIndex = AXIS_NAMES.map(
    (axis) => new Map(agent.axes[axis].map((value, n) => [value.name, n])),
  );
  const hits = new Int32Array(space.size);
  let offGrid = 0;
  for (const row of rows) {
    const at = AXIS_NAMES.map((axis, n) => valueIndex[n]?.get(row.situation.axes[axis]) ?? -1);
    if (at.includes(-1)) {
      offGrid++;
      continue;
    }
    for (let i = 0; i < AXIS_NAMES.length; i++)
      for (let j = i + 1; j < AXIS_NAMES.length; j++) {
        const p = space.index(i, at[i] as number, j, at[j] as number);
        hits[p] = (hits[p] as number) + 1;
      }
  }
  const pairs: AxisPair[] = [];
  for (let i = 0; i < AXIS_NAMES.length; i++) {
    for (let j = i + 1; j < AXIS_NAMES.length; j++) {
      const a = AXIS_NAMES[i] as AxisName;
      const b = AXIS_NAMES[j] as AxisName;
      let planned = 0;
      let touched = 0;
      const cells = agent.axes[a].map((_, x) =>
        agent.axes[b].map((_, y) => {
          const p = space.index(i, x, j, y);
          const cell = { planned: reach.target[p] === 1, rows: hits[p] as number };
          if (cell.planned) planned++;
          if (cell.planned && cell.rows > 0) touched++;
          return cell;
        }),
      );
      const names = (axis: AxisName) => agent.axes[axis].map((value) => value.name);
      pairs.push({ a, b, valuesA: names(a), valuesB: names(b), planned, touched, cells });
    }
  }
  return { pairs, offGrid };
}
