import { Planner } from "../env/plan.ts";
import type { AgentSpec } from "../spec/index.ts";

/** Tool (and rule) counts measured; each rule is scoped to one tool, as a grid of 200 × 200 free pairs is refused. */
const SIZES = [50, 100, 200];
/** Aim: plan time grows about as the grid's rows (exponent 1), not as their square (2). */
const TARGET_EXPONENT = 1.5;

/** A spec of `n` lookup tools and `n` rules, rule i concerning tool i alone. */
function specOf(n: number): AgentSpec {
  const tool = (i: number) => `get_item_${i}`;
  return {
    name: `plan-bench-${n}`,
    system_prompt: "You help.",
    tools: Array.from({ length: n }, (_, i) => ({
      type: "function" as const,
      function: {
        name: tool(i),
        description: `Look up item ${i}`,
        parameters: {
          type: "object" as const,
          properties: { item_id: { type: "string" } },
          required: ["item_id"],
        },
      },
    })),
    policy: Array.from({ length: n }, (_, i) => ({
      id: `rule_${i}`,
      text: `Quote reference ${i} before anything else.`,
      tools: [tool(i)],
    })),
  };
}

interface Timing {
  gridRows: number;
  lowerBound: number;
  plannerSeconds: number;
  firstSeconds: number;
}

/** CPU seconds (user + system) this process spent since `start`: steadier than wall time on a shared machine. */
function cpuSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

/**
 * What `rehearse plan --rows 1` costs: the planner (spec, covering array), then the first
 * situation (the walk's flip and order; the least of three walks, as each is a few milliseconds).
 */
function time(spec: AgentSpec): Timing {
  const start = process.cpuUsage();
  const planner = new Planner(spec, { rows: 1 });
  const plannerSeconds = cpuSince(start);
  let firstSeconds = Number.POSITIVE_INFINITY;
  for (let n = 0; n < 3; n++) {
    const walkStart = process.cpuUsage();
    planner.walk().next();
    firstSeconds = Math.min(firstSeconds, cpuSince(walkStart));
  }
  return {
    gridRows: planner.grid.rows.length,
    lowerBound: planner.grid.lowerBound,
    plannerSeconds,
    firstSeconds,
  };
}

/**
 * Runs of each size; the least CPU time is kept. The first run of a size is slower by up to half
 * while V8 compiles the greedy start's loops for its value counts (50: 0.32 s, then 0.19–0.26 s),
 * and a cold first size alone moved the exponent from 1.54 to 1.39 between two runs of one day.
 */
const RUNS = 3;

/** {@link time}, the least of {@link RUNS} runs for each part. */
function leastOf(spec: AgentSpec): Timing {
  const runs = Array.from({ length: RUNS }, () => time(spec));
  const least = (part: (t: Timing) => number) => Math.min(...runs.map(part));
  return {
    ...(runs[0] as Timing),
    plannerSeconds: least((t) => t.plannerSeconds),
    firstSeconds: least((t) => t.firstSeconds),
  };
}

/** Prints plan time at tools = rules = 50, 100, 200 and how it grows. */
export function run(): void {
  time(specOf(20)); // warm-up, so the first size is not timed while the code is compiled
  const results = SIZES.map((n) => ({ n, ...leastOf(specOf(n)) }));
  console.log(
    `plan: tools = rules = n (rule i scoped to tool i), CPU seconds until the first situation (plan --rows 1), the least of ${RUNS} runs`,
  );
  console.log("  n     grid rows  bound  planner s  first situation s  total s");
  for (const r of results) {
    console.log(
      `  ${String(r.n).padEnd(6)}${String(r.gridRows).padEnd(11)}${String(r.lowerBound).padEnd(7)}${r.plannerSeconds.toFixed(2).padEnd(11)}${r.firstSeconds.toFixed(3).padEnd(19)}${(r.plannerSeconds + r.firstSeconds).toFixed(2)}`,
    );
  }
  const first = results[0] as (typeof results)[number];
  const last = results[results.length - 1] as (typeof results)[number];
  const total = (r: Timing) => r.plannerSeconds + r.firstSeconds;
  const exponent = Math.log(total(last) / total(first)) / Math.log(last.gridRows / first.gridRows);
  const orderExponent =
    Math.log(last.firstSeconds / first.firstSeconds) / Math.log(last.gridRows / first.gridRows);
  console.log(
    `  growth: time ∝ grid rows^${exponent.toFixed(2)} (the first situation alone ^${orderExponent.toFixed(2)}); target ≤ ${TARGET_EXPONENT}: ${exponent <= TARGET_EXPONENT ? "met" : "MISSED"}`,
  );
}
