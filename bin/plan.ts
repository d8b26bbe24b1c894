import type { Command } from "commander";
import {
  Agent,
  describePlan,
  InputError,
  MAX_LISTED_SITUATIONS,
  type PlanSummary,
  planSituations,
} from "../env/index.ts";
import { DEFAULTS, LIMITS, PlanOptionsSchema } from "../spec/index.ts";
import { EXIT, type Io } from "./io.ts";
import { reportingLongWork } from "./long-work.ts";
import { flipOptions, number, optionsFrom, seed } from "./options.ts";

/** The flags as commander parsed them: the options unchecked, the spec path and the output switch. */
interface PlanFlags extends Record<string, unknown> {
  spec: string;
  json?: boolean;
}

/** `rehearse plan`: the planned grid of situations and the coverage of a run over it. */
export function planCommand(program: Command, io: Io, done: (code: number) => void): void {
  flipOptions(program.command("plan"))
    .description(
      "plan the situations of a run: the pairwise grid, the cold-start flip and the coverage of N rows",
    )
    .requiredOption("--spec <file>", "agent spec (JSON)")
    .option("--rows <n>", "situations to run (default: one pass over the grid)", number)
    .option(
      "--seed <seed>",
      `seed for the grid and the situations (default ${DEFAULTS.seed}, or the spec's world.seed)`,
      seed,
    )
    .option("--json", "print the whole plan as JSON")
    .addHelpText(
      "after",
      "\nExample:\n  rehearse plan --spec examples/retail-orders.json --rows 64\n",
    )
    .action(async (flags: PlanFlags) => done(await reportingLongWork(io, () => plan(flags, io))));
}

async function plan(flags: PlanFlags, io: Io): Promise<number> {
  const options = optionsFrom(PlanOptionsSchema, flags, "plan");
  // --json lists every situation; the summary makes none, so it takes any run LIMITS allow.
  if (flags.json && options.rows !== undefined && options.rows > MAX_LISTED_SITUATIONS)
    throw new InputError("plan flags", [
      {
        path: "--rows",
        message: `--json lists every planned situation: expected at most ${MAX_LISTED_SITUATIONS} rows with --json, got ${options.rows} (without --json, the summary takes up to ${LIMITS.rows})`,
      },
    ]);
  const agent = await Agent.load(flags.spec);
  io.out(
    flags.json
      ? `${JSON.stringify(planSituations(agent, options), null, 2)}\n`
      : summary(agent, describePlan(agent, options)),
  );
  return EXIT.ok;
}

function summary(agent: Agent, plan: PlanSummary): string {
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
    ...policyLines(plan),
    ...toolLines(plan),
    // What no call can meet, as `rehearse simulate` shows it: before any run, not after one.
    ...plan.warnings.map((w) => `warning   ${w}`),
    "",
  ].join("\n");
}

/** A text cut to a line's worth, on one line. */
function short(text: string, most = 100): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= most ? line : `${line.slice(0, most - 1)}…`;
}

/**
 * The policy as read, for a person to check: each rule with the tools it is paired with and why,
 * what was set aside and why, which writes wait for a yes, and whether identity comes first.
 * Anything read wrong is fixed in the spec (a rule list with `tools`, or `tool_roles`).
 */
function policyLines(plan: PlanSummary): string[] {
  const { policy } = plan;
  const lines = [
    "",
    `policy    ${policy.source === "markdown" ? "read from markdown" : "a rule list, kept as written"}: ${policy.read.length} rules, ${policy.dropped.length} passages set aside`,
  ];
  for (const rule of policy.read) {
    const tools = rule.tools ? rule.tools.join(", ") : "every tool";
    const marks = [rule.confirmation ? "asks for a yes" : "", rule.identity ? "identity first" : ""]
      .filter(Boolean)
      .join(", ");
    lines.push(
      `  ${rule.id}${rule.section ? ` [${short(rule.section, 40)}]` : ""} → ${tools} (${rule.scope})${marks ? `; ${marks}` : ""}`,
      `      "${short(rule.text)}"`,
    );
    if (rule.suggested) lines.push(`      its words speak of: ${rule.suggested.join(", ")}`);
  }
  for (const passage of policy.dropped)
    lines.push(`  set aside (${passage.why}): "${short(passage.text, 80)}"`);
  const yes = Object.entries(policy.confirmation);
  lines.push(
    `yes first ${yes.length === 0 ? "no write waits for the person's yes" : yes.map(([tool, why]) => `${tool} (${short(why, 60)})`).join("; ")}`,
  );
  for (const [tool, why] of Object.entries(policy.exempt))
    lines.push(`no yes    ${tool}: "${short(why, 80)}"`);
  lines.push(
    `identity  ${policy.identity.required ? `checked first${policy.identity.rule ? ` (rule ${policy.identity.rule})` : " (the system prompt)"}` : "not asked for"}`,
  );
  return lines;
}

/** Tools whose role is not an ordinary situation (utilities, hand-offs), and what told us. */
function toolLines(plan: PlanSummary): string[] {
  const special = plan.tools.filter((t) => t.role !== "normal");
  if (special.length === 0) return [];
  return [
    `tools     ${special.map((t) => `${t.name} ${t.role === "handoff" ? "hand-off" : t.role} (by ${t.role_source})`).join("; ")}; set tool_roles in the spec to change one`,
  ];
}
