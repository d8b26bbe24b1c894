import { mkdtemp, rm, stat } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { simulate } from "../env/simulate.ts";

const SPEC = join(import.meta.dirname, "../examples/retail-orders.json");
/**
 * Rows of each speed run: enough that starting the worker threads is a small part of it. Each
 * worker loads the engine and builds the agent (about 0.5 s) and compiles its hot code anew; at
 * 10,000 rows that was still about a tenth of a two-worker run.
 */
const SPEED_ROWS = 30_000;
/** Rollouts of each situation in the RL-group run: a group copies its situation's starting world. */
const GROUP_ROLLOUTS = 4;
/** The goal for offline rows per second on all cores of this 2-core machine (issue 16). */
const GOAL_ROWS_PER_SECOND = 2_000;
/**
 * Aim: what the 50,000-row run holds beyond the 1,000-row run, per extra row, stays far below the
 * size of one row (about 7,000 bytes of JSON on this spec, printed by the run): the run keeps only
 * the rows in flight.
 */
const TARGET_BYTES_PER_EXTRA_ROW = 50;

/**
 * Offline rows per second for a run of `rows` streamed to a file, on `workers` threads (0: this
 * thread alone), with the CPU time a row cost (every thread of the process) and the cores the run
 * got on average: on a machine shared with other work, rows per second follow the cores it got.
 */
async function speed(
  rows: number,
  workers: number,
  dir: string,
  rollouts = 1,
): Promise<{ rate: number; cpuPerRowUs: number; cores: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  // With rollouts, `rows` counts situations: the run plays rows × rollouts episodes.
  await simulate(SPEC, {
    rows: rows / rollouts,
    rollouts,
    workers,
    out: join(dir, `speed-${workers}-${rollouts}.jsonl`),
  });
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuUs = used.user + used.system;
  return { rate: rows / seconds, cpuPerRowUs: cpuUs / rows, cores: cpuUs / 1e6 / seconds };
}

/** One line of the speed table. */
function speedLine(label: string, s: { rate: number; cpuPerRowUs: number; cores: number }): string {
  return `  ${label.padEnd(20)} ${s.rate.toFixed(0).padStart(5)} rows/s   ${s.cpuPerRowUs.toFixed(0).padStart(5)} µs CPU a row   ${s.cores.toFixed(2)} cores used`;
}

/**
 * The peak live heap of this thread (after a full collection, sampled at 20 points) above where it
 * started, what the run holds, garbage excluded; the process's peak resident memory (worker
 * threads included, their garbage too), over the run and over its first tenth; and the mean row
 * size, from the file's size, for a run of `rows` on every core.
 */
async function memory(
  rows: number,
  dir: string,
): Promise<{ heapMb: number; rssMb: number; firstTenthRssMb: number; rowBytes: number }> {
  globalThis.gc?.();
  const base = process.memoryUsage();
  let heap = 0;
  let rss = 0;
  let firstTenth = 0;
  const every = Math.max(1, Math.floor(rows / 20));
  const out = join(dir, `memory-${rows}.jsonl`);
  await simulate(SPEC, {
    rows,
    out,
    onProgress: (done) => {
      if (done % every !== 0) return;
      globalThis.gc?.();
      const now = process.memoryUsage();
      heap = Math.max(heap, now.heapUsed - base.heapUsed);
      rss = Math.max(rss, now.rss - base.rss);
      if (done <= rows / 10) firstTenth = rss;
    },
  });
  const { size } = await stat(out);
  return {
    heapMb: heap / 2 ** 20,
    rssMb: rss / 2 ** 20,
    firstTenthRssMb: firstTenth / 2 ** 20,
    rowBytes: size / rows,
  };
}

/** Rows per second in this thread alone and on 1, 2 and all cores' worker threads; peak memory for 1,000 and 50,000 rows. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "rehearse-bench-"));
  try {
    if (!globalThis.gc)
      console.log(
        "(run with node --expose-gc, as `npm run bench` does, for steadier memory figures)",
      );
    const cores = availableParallelism();
    console.log(
      `simulate: offline rows streamed to a JSONL file (retail example), ${SPEED_ROWS.toLocaleString("en")} rows a run, ${cores} cores`,
    );
    const single = await speed(SPEED_ROWS, 0, dir);
    console.log(speedLine("this thread alone", single));
    let all = single.rate;
    for (const workers of [...new Set([1, 2, cores])]) {
      const s = await speed(SPEED_ROWS, workers, dir);
      if (workers === cores) all = s.rate;
      console.log(
        `${speedLine(`${workers} worker thread${workers === 1 ? "" : "s"}`, s)}   ${(s.rate / single.rate).toFixed(2)}× this thread alone`,
      );
    }
    console.log(
      `  all ${cores} cores: ${all.toFixed(0)} rows/s (goal ≥ ${GOAL_ROWS_PER_SECOND.toLocaleString("en")}: ${all >= GOAL_ROWS_PER_SECOND ? "met" : "MISSED"}); load average ${loadavg()[0]?.toFixed(1)} over the last minute`,
    );
    const groups = await speed(SPEED_ROWS, cores, dir, GROUP_ROLLOUTS);
    console.log(
      `${speedLine(`groups of ${GROUP_ROLLOUTS}, ${cores} workers`, groups)}   (RL groups: the rollouts of a situation share its starting world)`,
    );
    const small = await memory(1_000, dir);
    const large = await memory(50_000, dir);
    const perExtraRow = ((large.heapMb - small.heapMb) * 2 ** 20) / (50_000 - 1_000);
    console.log(
      `  1,000 rows     peak heap +${small.heapMb.toFixed(2)} MB   peak resident +${small.rssMb.toFixed(0)} MB (worker threads included)`,
    );
    console.log(
      `  50,000 rows    peak heap +${large.heapMb.toFixed(2)} MB   peak resident +${large.rssMb.toFixed(0)} MB; over its first 5,000 rows +${large.firstTenthRssMb.toFixed(0)} MB`,
    );
    console.log(
      `  memory: held per extra row ${perExtraRow.toFixed(1)} bytes of heap (target ≤ ${TARGET_BYTES_PER_EXTRA_ROW}: ${perExtraRow <= TARGET_BYTES_PER_EXTRA_ROW ? "met" : "MISSED"}) where a row is ${large.rowBytes.toFixed(0)} bytes of JSON`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
