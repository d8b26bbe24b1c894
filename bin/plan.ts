import type { Command } from "commander";
import { Agent } from "../env/agent.ts";
import { type Plan, planSituations } from "../env/plan.ts";
import { flipOptions, integer, seed } from "./options.ts";

interface PlanFlags {
  spec: string;
  rows?: number;
  seed?: number | string;
  faultRate?: number;
  preferSuccess?: boolean;
  json?: boolean;
}

/** `rehearse plan`: the planned grid of situations and the coverage of a run over it. */
export function planCommand(program: Command): void {
  flipOptions(program.command("plan"))
    .description(
      "plan the situations of a run: the pairwise grid, the cold-start flip and the coverage of N rows",
    )
    .requiredOption("--spec <file>", "agent spec (JSON)")
    .option("--rows <n>", "situations to run (default: one pass over the grid)", integer(1))
    .option("--seed <seed>", "seed for the grid and the situations", seed)
    .option("--json", "print the whole plan as JSON")
    .action(async (flags: PlanFlags) => {
      const agent = await Agent.load(flags.spec);
      const plan = planSituations(agent, {
        rows: flags.rows,
        seed: flags.seed,
        faultRate: flags.faultRate,
        preferSuccess: flags.preferSuccess,
      });
      process.stdout.write(
        flags.json ? `${JSON.stringify(plan, null, 2)}\n` : summary(agent, plan),
      );
    });
}

function summary(agent: Agent, plan: Plan): string {
  const { grid, flip, coverage } = plan;
  const axes = Object.entries(plan.axes)
    .map(([axis, values]) => `${axis} ${values.length}`)
    .join(" · ");
  const flipLine = flip.prefer_success
    ? `cold start: ${flip.flipped} of ${flip.fault_cells} fault cells → ok, ${flip.kept} kept (${flip.kinds_kept.join(", ") || "none"}); fault_rate ${flip.fault_rate}`
    : `prefer_success off: all ${flip.fault_cells} fault cells kept`;
  const implied = grid.implied_conflicts.length;
  const { pairs_covered, pairs_planned, fraction } = coverage.pairwise;
  return [
    `plan      ${agent.name} (spec ${plan.spec_hash.slice(0, 12)}, seed ${plan.seed})`,
    `axes      ${axes}`,
    `grid      ${grid.rows} rows (lower bound ${grid.lower_bound}, greedy ${grid.greedy_rows}) · ${grid.pairs_planned} pairs planned · ${grid.pairs_forbidden} forbidden · ${implied} implied conflicts`,
    `flip      ${flipLine}`,
    `run       ${plan.rows} situations in ${plan.passes} pass${plan.passes === 1 ? "" : "es"}`,
    `coverage  ${pairs_covered} / ${pairs_planned} pairs = ${fraction.toFixed(3)}`,
    "",
  ].join("\n");
}
