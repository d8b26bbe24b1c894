import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CoveringArray, coveringArray } from "../env/covering/index.ts";
import { greedyBaseline } from "./greedy-baseline.ts";
import { median } from "./stats.ts";

interface Grid {
  name: string;
  levels: number[];
  /** Best published size we aim at (for six-axis grids, the lower bound). */
  best?: number;
  /** PICT's published size. */
  pict?: number;
}

const times = (level: number, count: number) => Array<number>(count).fill(level);

const GRIDS: Grid[] = [
  { name: "8 8 7 3 3 2", levels: [8, 8, 7, 3, 3, 2] },
  { name: "9 8 5 4 3 2", levels: [9, 8, 5, 4, 3, 2] },
  { name: "3^13", levels: times(3, 13), best: 15, pict: 18 },
  {
    name: "4^15 3^17 2^29",
    levels: [...times(4, 15), ...times(3, 17), ...times(2, 29)],
    best: 28,
    pict: 37,
  },
  { name: "4^1 3^39 2^35", levels: [4, ...times(3, 39), ...times(2, 35)], best: 20, pict: 27 },
  { name: "10^20", levels: times(10, 20), best: 180, pict: 210 },
  { name: "2^100", levels: times(2, 100), best: 10, pict: 15 },
];

/** Targets: six-axis grids within 1.05 × the lower bound; classic grids at or below PICT's size. */
const SIX_AXIS_SLACK = 1.05;
/** Target when PICT can be run here: our CPU time within this many times its time. */
const PICT_TIME_RATIO = 20;
/**
 * Small grids take milliseconds, near the CPU clock's grain: our greedy baseline is run back to back
 * for at least this many CPU seconds, after a warm-up run, and timed as the mean; our engine's rounds
 * run for at least twice this in all.
 */
const TIMED_SECONDS = 0.25;
/**
 * Our engine and PICT are timed in rounds, one of ours (back-to-back runs for at least this many CPU
 * seconds, their mean) then one of PICT's, at least {@link ROUNDS} of them: a shared machine's speed
 * drifts within minutes, and a ratio of two times taken seconds apart measures the drift as well.
 */
const ROUND_SECONDS = 0.05;
const ROUNDS = 15;
/**
 * Seeds each classic grid is also run with, once each: the table's seed 1 is one draw of a search
 * whose rows and time vary with the seed, and a user's seed is any of them.
 */
const SPREAD_SEEDS = 8;

function seconds(start: number): string {
  return ((performance.now() - start) / 1000).toFixed(2);
}

/** CPU seconds (user + system) this process spent since `start`. */
function cpuSeconds(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

/** Our array for a grid, its CPU and wall seconds a run, and PICT's rows, time and our ratio to it when it is installed. */
interface Timed {
  result: CoveringArray;
  cpu: number;
  total: string;
  pict: { rows: number; seconds: number | null } | null;
  /** The median over rounds of our CPU time over PICT's in the same round; null without PICT or when its time is too small to tell. */
  ratio: number | null;
}

/**
 * Times our engine on a grid, and PICT beside it in the same rounds when `pict` is installed. Our
 * time is taken in-process, so PICT's process start-up and reading (a few milliseconds) are taken
 * off: each of its runs is followed by a run of a one-parameter model, and its time is the
 * difference. Figures are medians over the rounds (one slow start-up would swing a mean by more than
 * a small grid takes); a PICT time under a tenth of a millisecond is too little to tell from start-up
 * noise (null). Every run of ours must give the same array.
 */
function timeGrid(levels: number[], dir: string, pict: boolean): Timed {
  const result = coveringArray({ levels }, { seed: 1 });
  const rows = JSON.stringify(result.rows);
  const model = pict ? pictModel(levels, join(dir, "model.txt")) : "";
  const one = pict ? pictModel([2], join(dir, "one.txt")) : "";
  const pictRows = pict ? pictOnce(model).stdout.trim().split("\n").length - 1 : 0;
  if (pict) pictOnce(one);
  const ours: number[] = [];
  const walls: number[] = [];
  const theirs: number[] = [];
  const ratios: number[] = [];
  const start = performance.now();
  while (ours.length < ROUNDS || performance.now() - start < 2 * TIMED_SECONDS * 1000) {
    const wallStart = performance.now();
    const cpuStart = process.cpuUsage();
    let runs = 0;
    while (runs === 0 || cpuSeconds(cpuStart) < ROUND_SECONDS) {
      if (JSON.stringify(coveringArray({ levels }, { seed: 1 }).rows) !== rows)
        throw new Error(
          `covering: two runs of ${levels.length} axes with seed 1 gave different arrays`,
        );
      runs++;
    }
    const cpu = cpuSeconds(cpuStart) / runs;
    ours.push(cpu);
    walls.push((performance.now() - wallStart) / 1000 / runs);
    if (!pict) continue;
    const difference = pictOnce(model).seconds - pictOnce(one).seconds;
    theirs.push(difference);
    if (difference > 0) ratios.push(cpu / difference);
  }
  const pictSeconds = pict ? median(theirs) : null;
  const told = pictSeconds !== null && pictSeconds >= 1e-4;
  return {
    result,
    cpu: median(ours),
    total: median(walls).toFixed(2),
    pict: pict ? { rows: pictRows, seconds: told ? pictSeconds : null } : null,
    ratio: told ? median(ratios) : null,
  };
}

/** Rows and CPU seconds of one run of our engine for each of seeds 1 to {@link SPREAD_SEEDS}. */
function seedSpread(levels: number[]): { rows: number[]; cpu: number[] } {
  const rows: number[] = [];
  const cpu: number[] = [];
  for (let seed = 1; seed <= SPREAD_SEEDS; seed++) {
    const start = process.cpuUsage();
    rows.push(coveringArray({ levels }, { seed }).rows.length);
    cpu.push(cpuSeconds(start));
  }
  return { rows, cpu };
}

/** Rows of our greedy baseline ({@link greedyBaseline}) and its mean CPU seconds per run, warmed. */
function runBaseline(levels: number[]): { rows: number; cpu: number } {
  const rows = greedyBaseline(levels, 1).length;
  const start = process.cpuUsage();
  let runs = 0;
  while (runs === 0 || cpuSeconds(start) < TIMED_SECONDS) {
    greedyBaseline(levels, 1);
    runs++;
  }
  return { rows, cpu: cpuSeconds(start) / runs };
}

/** Whether a `pict` binary is on the PATH (Debian packages none: build it from github.com/microsoft/pict). */
function pictInstalled(): boolean {
  return spawnSync("pict", ["/?"], { stdio: "ignore" }).error === undefined;
}

/** Writes PICT's model of a grid: one parameter per axis, its values v0, v1, …. */
function pictModel(levels: number[], path: string): string {
  writeFileSync(
    path,
    levels
      .map((n, axis) => `P${axis}: ${Array.from({ length: n }, (_, v) => `v${v}`).join(", ")}`)
      .join("\n"),
  );
  return path;
}

/** One run of PICT on a model: its output and wall seconds. */
function pictOnce(model: string): { stdout: string; seconds: number } {
  const start = performance.now();
  const out = spawnSync("pict", [model], { encoding: "utf8", maxBuffer: 1 << 26 });
  const seconds = (performance.now() - start) / 1000;
  if (out.status !== 0) throw new Error(`pict failed: ${out.stderr}`);
  return { stdout: out.stdout, seconds };
}

/**
 * Prints our rows, the bound, the published sizes and the generation time (wall and CPU) for each
 * grid; the rows and CPU time of our greedy baseline (one plain greedy row at a time, the class of
 * algorithm PICT uses; not PICT) measured in the same run, and our CPU time as a multiple of it;
 * and PICT's rows and time measured in the same run when `pict` is installed.
 */
export function run(): void {
  const pict = pictInstalled();
  const dir = mkdtempSync(join(tmpdir(), "rehearse-covering-"));
  const header = [
    "grid",
    "greedy",
    "greedy s",
    "rows",
    "total s",
    "cpu s",
    "base rows",
    "base cpu s",
    "cpu/base",
    "bound",
    "best",
    "PICT",
    "PICT here",
    "PICT s",
    "cpu/PICT",
    "rows/bound",
    "target",
  ];
  const lines: string[][] = [];
  let missed = 0;
  /** Classic grids (those with a PICT size) and how many are within the time ratio of our baseline. */
  let classic = 0;
  let withinBaseline = 0;
  let withinPict = 0;
  /** Classic grids whose median CPU over the seeds is within the time ratio of PICT's. */
  let withinPictAtMedian = 0;
  const spreads: string[] = [];
  try {
    for (const grid of GRIDS) {
      const greedyStart = performance.now();
      const greedy = coveringArray({ levels: grid.levels }, { seed: 1, effort: 0 });
      const greedySeconds = seconds(greedyStart);
      const { result, cpu, total, pict: measured, ratio } = timeGrid(grid.levels, dir, pict);
      const baseline = runBaseline(grid.levels);
      const rows = result.rows.length;
      const best = grid.best ?? result.lowerBound;
      const met =
        (grid.pict === undefined
          ? rows <= SIX_AXIS_SLACK * result.lowerBound
          : rows <= grid.pict) &&
        (ratio === null || grid.pict === undefined || ratio <= PICT_TIME_RATIO);
      if (!met) missed++;
      if (grid.pict !== undefined) {
        const spread = seedSpread(grid.levels);
        const sorted = [...spread.rows].sort((a, b) => a - b);
        const beaten = spread.rows.filter((r) => r <= (grid.pict as number)).length;
        const pictSeconds = measured?.seconds ?? null;
        const cpuMedian = median(spread.cpu);
        const cpuMost = Math.max(...spread.cpu);
        if (pictSeconds && cpuMedian <= PICT_TIME_RATIO * pictSeconds) withinPictAtMedian++;
        spreads.push(
          `  ${grid.name.padEnd(16)} rows ${sorted[0]}–${sorted.at(-1)} (median ${median(spread.rows)}; ≤ PICT's ${grid.pict} on ${beaten} of ${SPREAD_SEEDS})   CPU median ${cpuMedian.toFixed(3)} s, most ${cpuMost.toFixed(3)} s${pictSeconds ? ` = ${(cpuMedian / pictSeconds).toFixed(1)}× and ${(cpuMost / pictSeconds).toFixed(1)}× PICT's time` : ""}`,
        );
        classic++;
        if (cpu <= PICT_TIME_RATIO * baseline.cpu) withinBaseline++;
        if (ratio !== null && ratio <= PICT_TIME_RATIO) withinPict++;
      }
      lines.push([
        grid.name,
        String(greedy.rows.length),
        greedySeconds,
        String(rows),
        total,
        cpu.toFixed(3),
        String(baseline.rows),
        baseline.cpu.toFixed(5),
        (cpu / baseline.cpu).toFixed(0),
        String(result.lowerBound),
        String(best),
        grid.pict === undefined ? "-" : String(grid.pict),
        measured ? String(measured.rows) : "-",
        measured ? (measured.seconds === null ? "<0.0001" : measured.seconds.toFixed(4)) : "-",
        ratio === null ? "-" : ratio.toFixed(1),
        (rows / result.lowerBound).toFixed(3),
        met ? (rows <= best ? "met (best)" : "met") : "MISSED",
      ]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const widths = header.map((h, n) =>
    Math.max(h.length, ...lines.map((l) => (l[n] as string).length)),
  );
  const format = (cells: string[]) => cells.map((c, n) => c.padEnd(widths[n] as number)).join("  ");
  console.log(
    "covering: pairwise covering arrays, seed 1 (greedy = the AETG-style start alone, effort 0; PICT = its published size)",
  );
  console.log(format(header));
  for (const line of lines) console.log(format(line));
  console.log(
    `total s, cpu s: our engine's median over at least ${ROUNDS} rounds after a warm-up run (each the mean of back-to-back runs over ${ROUND_SECONDS} s of CPU), PICT run between them; base = our greedy baseline (bench/greedy-baseline.ts: one plain greedy row at a time, the class of algorithm PICT uses; it is not PICT), timed the same way; cpu/base = our CPU time over it`,
  );
  console.log(
    pict
      ? `PICT measured here (pict on the PATH): PICT s is the median over the same rounds of its run's time less a one-parameter model's (its start-up), cpu/PICT the median of each round's ratio, "<0.0001" when too small to tell from start-up noise (no ratio then); targets also want classic grids within ${PICT_TIME_RATIO}× its time: ${withinPict} of ${classic} are`
      : `PICT is not on the PATH (Debian has no package; build it from github.com/microsoft/pict with make): its rows are the published sizes, its time is not measured, so no time ratio`,
  );
  console.log(
    `targets: six-axis grids ≤ ${SIX_AXIS_SLACK} × bound, classic grids ≤ PICT's rows${pict ? ` and within ${PICT_TIME_RATIO}× its time` : ""} — ${missed === 0 ? "all met" : `${missed} missed`}`,
  );
  console.log(
    `seeds 1–${SPREAD_SEEDS}, one run each (the search's rows and time depend on its seed; the table is seed 1):`,
  );
  for (const line of spreads) console.log(line);
  if (pict)
    console.log(
      `  at the median seed, within ${PICT_TIME_RATIO}× PICT's time on ${withinPictAtMedian} of ${classic} classic grids (the table above is seed 1 alone)`,
    );
  console.log(
    `stand-in for the ${PICT_TIME_RATIO}× PICT time target: our CPU within ${PICT_TIME_RATIO}× our greedy baseline's on ${withinBaseline} of ${classic} classic grids`,
  );
}
