import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { simulate } from "../env/simulate.ts";
import { withBuiltCli } from "./built-cli.ts";

const runFile = promisify(execFile);

const SPEC = join(import.meta.dirname, "../examples/retail-orders.json");
const CLI_SOURCE = join(import.meta.dirname, "../bin/rehearse.ts");
/**
 * Rows of each speed run: enough that starting the worker threads is a small part of it, and that
 * its rows after {@link WARM_ROWS} give a steady rate.
 */
const SPEED_ROWS = 30_000;
/**
 * Rows a run plays before its warm rate is taken. Every worker thread loads the engine (about
 * 0.5 s) and compiles its hot code anew: V8's optimising compiler spent about 2.7 s of CPU a thread
 * on it (`node --trace-opt`), most of it within the first few thousand rows, on the same two cores
 * the rows are played on. A throughput is taken warm, as the server's is (`bench/server.ts` warms
 * each server first); the whole run is printed beside it.
 */
const WARM_ROWS = 10_000;
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
 * got on average (on a machine shared with other work, rows per second follow the cores it got),
 * over the whole run and after its first {@link WARM_ROWS} rows.
 */
async function speed(rows: number, workers: number, dir: string, rollouts = 1): Promise<Speed> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  let warm: { at: number; cpu: NodeJS.CpuUsage } | null = null;
  // With rollouts, `rows` counts situations: the run plays rows × rollouts episodes.
  await simulate(SPEC, {
    rows: rows / rollouts,
    rollouts,
    workers,
    out: join(dir, `speed-${workers}-${rollouts}.jsonl`),
    onProgress: (done) => {
      if (done === WARM_ROWS) warm = { at: performance.now(), cpu: process.cpuUsage() };
    },
  });
  const end = performance.now();
  const whole = figures(rows, end - start, process.cpuUsage(cpu));
  const warmed = warm as { at: number; cpu: NodeJS.CpuUsage } | null;
  if (!warmed) throw new Error(`a speed run of ${rows} rows never reached row ${WARM_ROWS}`);
  return {
    ...whole,
    warm: figures(rows - WARM_ROWS, end - warmed.at, process.cpuUsage(warmed.cpu)),
  };
}

/** Rows per second, CPU time a row and cores used, for `rows` played in `ms` using `used`. */
function figures(rows: number, ms: number, used: NodeJS.CpuUsage): Figures {
  const cpuUs = used.user + used.system;
  return { rate: (rows / ms) * 1000, cpuPerRowUs: cpuUs / rows, cores: cpuUs / 1000 / ms };
}

/** How fast some rows were played. */
interface Figures {
  rate: number;
  cpuPerRowUs: number;
  cores: number;
}

/** A speed run's figures, over the whole run and after its first {@link WARM_ROWS} rows. */
interface Speed extends Figures {
  warm: Figures;
}

/** One line of the speed table: the warm figures, then the whole run's rate. */
function speedLine(label: string, s: Speed): string {
  return `  ${label.padEnd(20)} ${s.warm.rate.toFixed(0).padStart(5)} rows/s   ${s.warm.cpuPerRowUs.toFixed(0).padStart(5)} µs CPU a row   ${s.warm.cores.toFixed(2)} cores used   whole run ${s.rate.toFixed(0).padStart(5)} rows/s`;
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

/** The SHA-256 of a file, read as a stream: a dataset of a speed run is hundreds of megabytes. */
async function digest(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Seconds one `rehearse simulate` command of {@link SPEED_ROWS} rows takes, spawn to exit. */
async function command(node: string[], out: string): Promise<number> {
  const start = performance.now();
  await runFile(
    process.execPath,
    [
      ...node,
      "simulate",
      "--spec",
      SPEC,
      "--rows",
      String(SPEED_ROWS),
      "--out",
      out,
      "--overwrite",
    ],
    { maxBuffer: 16 * 2 ** 20 },
  );
  return (performance.now() - start) / 1000;
}

/**
 * Rows per second of whole `rehearse simulate` commands on every core, spawn to exit (start-up,
 * plan, worker threads and summary included), the better of 2 runs each, interleaved: the built
 * CLI a user installs, and the same sources through tsx, as the runs above play them. Each must
 * write the dataset `simulate()` wrote to `library`, byte for byte.
 */
async function commands(dir: string, library: string): Promise<{ built: number; tsx: number }> {
  const expected = await digest(library);
  return withBuiltCli(async (entry) => {
    const kinds = { built: [entry], tsx: ["--import", "tsx", CLI_SOURCE] };
    const fastest = { built: Number.POSITIVE_INFINITY, tsx: Number.POSITIVE_INFINITY };
    for (let round = 0; round < 2; round++)
      for (const kind of ["built", "tsx"] as const) {
        const out = join(dir, `command-${kind}.jsonl`);
        fastest[kind] = Math.min(fastest[kind], await command(kinds[kind], out));
        if ((await digest(out)) !== expected)
          throw new Error(`simulate: the ${kind} CLI wrote another dataset than simulate() did`);
      }
    return { built: SPEED_ROWS / fastest.built, tsx: SPEED_ROWS / fastest.tsx };
  });
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
      `simulate: offline rows streamed to a JSONL file (retail example), ${SPEED_ROWS.toLocaleString("en")} rows a run, ${cores} cores; figures after each run's first ${WARM_ROWS.toLocaleString("en")} rows (warm), whole run last`,
    );
    const single = await speed(SPEED_ROWS, 0, dir);
    console.log(speedLine("this thread alone", single));
    let all = single;
    for (const workers of [...new Set([1, 2, cores])]) {
      const s = await speed(SPEED_ROWS, workers, dir);
      if (workers === cores) all = s;
      console.log(
        `${speedLine(`${workers} worker thread${workers === 1 ? "" : "s"}`, s)}   ${(s.warm.rate / single.warm.rate).toFixed(2)}× this thread alone`,
      );
    }
    const met = (rate: number) => (rate >= GOAL_ROWS_PER_SECOND ? "met" : "MISSED");
    console.log(
      `  all ${cores} cores: ${all.warm.rate.toFixed(0)} rows/s warm, ${all.rate.toFixed(0)} over the whole run (goal ≥ ${GOAL_ROWS_PER_SECOND.toLocaleString("en")}: ${met(all.warm.rate)} warm, ${met(all.rate)} over the whole run); load average ${loadavg()[0]?.toFixed(1)} over the last minute`,
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
    // After the memory figures, which are read against this process's memory before each run.
    const cli = await commands(dir, join(dir, `speed-${cores}-1.jsonl`));
    console.log(
      `  rehearse simulate, the whole command on ${cores} cores (spawn to exit: start-up, plan and summary included), the better of 2: built ${cli.built.toFixed(0)} rows/s (goal ≥ ${GOAL_ROWS_PER_SECOND.toLocaleString("en")}: ${met(cli.built)}), through tsx ${cli.tsx.toFixed(0)} rows/s; both wrote simulate()'s dataset byte for byte`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
