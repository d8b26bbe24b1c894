import {
  CELL_STATUSES,
  type CellFigures,
  type CellStatus,
  type Trace,
  type TraceCell,
  type TracePicture,
  type TracePictureOptions,
  TracePictureOptionsSchema,
  type TraceProblem,
} from "../../spec/index.ts";
import { PASS_THRESHOLD } from "../grade/agreement.ts";
import { InputError, issuesOf } from "../util/errors.ts";

const Z95 = 1.959964;

/**
 * Where the deployed agent fails: per cell of the axis space (tool × condition × world), the
 * current model version's graded traces, failures, failure rate with its 95% Wilson interval, the
 * same for the previous version, and the cell's status against it — a new failure, still failing,
 * stopped failing, or fine. A cell the current version has not met but the previous failed counts
 * as still failing: nothing shows it fixed.
 */
export function tracePicture(
  traces: readonly Trace[],
  problems: readonly TraceProblem[],
  options: TracePictureOptions = {},
): TracePicture {
  const parsed = TracePictureOptionsSchema.safeParse(options);
  if (!parsed.success)
    throw new InputError("trace picture options", issuesOf(parsed.error, options));
  const { failThreshold } = parsed.data;
  const { current, previous } = versionsOf(traces, {
    current: parsed.data.current,
    previous: parsed.data.previous,
  });
  const tallies = new Map<
    string,
    { cell: Trace["coordinate"]; current: [number, number]; previous: [number, number] }
  >();
  const counted = { read: traces.length, graded: 0, current: 0, previous: 0 };
  for (const trace of traces) {
    if (!trace.grade) continue;
    counted.graded++;
    const side = trace.model === current ? "current" : trace.model === previous ? "previous" : null;
    if (!side) continue;
    counted[side]++;
    const key = keyOf(trace.coordinate);
    const tally = tallies.get(key) ?? { cell: trace.coordinate, current: [0, 0], previous: [0, 0] };
    tally[side][0]++;
    if (trace.grade.reward < PASS_THRESHOLD) tally[side][1]++;
    tallies.set(key, tally);
  }
  const cells: TraceCell[] = [...tallies.values()].map((tally) => {
    const now = figures(tally.current, failThreshold);
    const before = figures(tally.previous, failThreshold);
    return {
      coordinate: tally.cell,
      current: now,
      previous: before,
      status: statusOf(now, before),
    };
  });
  cells.sort(
    (a, b) =>
      CELL_STATUSES.indexOf(a.status) - CELL_STATUSES.indexOf(b.status) ||
      (b.current.failure_rate ?? -1) - (a.current.failure_rate ?? -1) ||
      keyOf(a.coordinate).localeCompare(keyOf(b.coordinate)),
  );
  const problemCounts: Record<string, number> = {};
  const unknownTools: Record<string, number> = {};
  for (const problem of problems)
    problemCounts[problem.kind] = (problemCounts[problem.kind] ?? 0) + 1;
  for (const trace of traces)
    for (const tool of trace.unknown_tools) unknownTools[tool] = (unknownTools[tool] ?? 0) + 1;
  return {
    versions: { current, previous },
    traces: counted,
    fail_threshold: failThreshold,
    cells,
    problems: [...problems],
    problem_counts: problemCounts,
    unknown_tools: unknownTools,
  };
}

/** A cell's key: its coordinate as one string. */
export function keyOf(coordinate: Trace["coordinate"]): string {
  return `${coordinate.tool ?? "(no tool)"} × ${coordinate.condition} × ${coordinate.world}`;
}

/** The 95% Wilson score interval of `failures` out of `count`. */
export function wilson(failures: number, count: number): [number, number] {
  const p = failures / count;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * count)) / (1 + z2 / count);
  const half =
    (Z95 * Math.sqrt((p * (1 - p)) / count + z2 / (4 * count * count))) / (1 + z2 / count);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

function figures([count, failures]: [number, number], threshold: number): CellFigures {
  if (count === 0) return { count, failures, failure_rate: null, interval: null, failing: false };
  const rate = failures / count;
  return {
    count,
    failures,
    failure_rate: rate,
    interval: wilson(failures, count),
    failing: failures > 0 && rate >= threshold,
  };
}

function statusOf(now: CellFigures, before: CellFigures): CellStatus {
  if (now.failing) return before.failing ? "still_failing" : "new_failure";
  if (before.failing) return now.count > 0 ? "stopped_failing" : "still_failing";
  return "fine";
}

/**
 * The versions compared: as asked, else the version of the newest trace (by start time, then by
 * order read) and the newest other one.
 */
function versionsOf(
  traces: readonly Trace[],
  asked: { current?: string | undefined; previous?: string | undefined },
): { current: string | null; previous: string | null } {
  const newest = new Map<string, number>();
  traces.forEach((trace, index) => {
    if (trace.model === null) return;
    const at = trace.started ?? index;
    newest.set(trace.model, Math.max(newest.get(trace.model) ?? Number.NEGATIVE_INFINITY, at));
  });
  const byAge = [...newest.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([model]) => model);
  for (const [field, version] of Object.entries(asked))
    if (version !== undefined && !newest.has(version))
      throw new InputError("trace picture options", [
        {
          path: field,
          message: `no trace was made by ${version} (found ${byAge.join(", ") || "none"})`,
        },
      ]);
  const current = asked.current ?? byAge[0] ?? null;
  const previous = asked.previous ?? byAge.find((model) => model !== current) ?? null;
  return { current, previous };
}
