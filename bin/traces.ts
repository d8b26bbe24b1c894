import type { Command } from "commander";
import { Agent, ingestTraces, keyOf, tracePicture } from "../env/index.ts";
import { type TracePicture, TracesCommandOptionsSchema } from "../spec/index.ts";
import { EXIT, type Io } from "./io.ts";
import { number, optionsFrom } from "./options.ts";

/** `rehearse traces`: where the deployed agent fails, read from production traces or graded rows. */
export function tracesCommand(program: Command, io: Io, done: (code: number) => void): void {
  program
    .command("traces")
    .description(
      "read production traces (OTLP/JSON, GenAI semantic conventions) or graded rows, and show which situations fail, which are new since the last model version, and which stopped failing",
    )
    .argument(
      "<files...>",
      "OTLP/JSON exports (one per file or one per line) or rehearse JSONL rows",
    )
    .requiredOption("--spec <file>", "the agent spec whose axes the traces are placed on")
    .option(
      "--labels <file>",
      "JSONL of grades kept apart: {conversation_id, reward, failure_class?}",
    )
    .option("--current <model>", "the model version to judge (default: the newest trace's)")
    .option("--previous <model>", "the version to compare with (default: the newest other one)")
    .option(
      "--fail-threshold <share>",
      "a cell fails when at least this share of its traces failed (default 0.25)",
      number,
    )
    .option("--json", "print the picture as JSON")
    .addHelpText(
      "after",
      "\nExample:\n  rehearse traces otel-export.jsonl --spec agent.json --labels grades.jsonl\n",
    )
    .action(async (files: string[], flags: Record<string, unknown>) => {
      const options = optionsFrom(TracesCommandOptionsSchema, flags, "traces");
      const agent = await Agent.load(options.spec);
      const { traces, problems } = await ingestTraces(files, {
        agent,
        ...(options.labels ? { labels: options.labels } : {}),
      });
      const picture = tracePicture(traces, problems, {
        ...(options.current ? { current: options.current } : {}),
        ...(options.previous ? { previous: options.previous } : {}),
        ...(options.failThreshold !== undefined ? { failThreshold: options.failThreshold } : {}),
      });
      io.out(flags.json ? `${JSON.stringify(picture, null, 2)}\n` : printed(picture));
      done(EXIT.ok);
    });
}

/** The picture as a table a person reads, worst first, then what could not be read. */
export function printed(picture: TracePicture): string {
  const pct = (x: number | null) => (x === null ? "–" : `${(x * 100).toFixed(0)}%`);
  const { versions, traces } = picture;
  const lines = [
    `traces    ${traces.read} read, ${traces.graded} graded: ${traces.current} of ${versions.current ?? "no model"}, ${traces.previous} of ${versions.previous ?? "no earlier version"}`,
    "",
    "status           failures  rate  95% interval  before  cell (tool × condition × world)",
  ];
  for (const cell of picture.cells) {
    const now = cell.current;
    const interval = now.interval ? `${pct(now.interval[0])}–${pct(now.interval[1])}` : "–";
    lines.push(
      [
        cell.status.replace("_", " ").padEnd(16),
        `${now.failures}/${now.count}`.padStart(8),
        pct(now.failure_rate).padStart(5),
        interval.padStart(13),
        pct(cell.previous.failure_rate).padStart(7),
        ` ${keyOf(cell.coordinate)}`,
      ].join(" "),
    );
  }
  const counts = Object.entries(picture.problem_counts);
  if (counts.length > 0) {
    lines.push(
      "",
      `problems  ${counts.map(([kind, n]) => `${n} ${kind.replace("_", " ")}`).join(", ")}`,
    );
    for (const problem of picture.problems.slice(0, 10))
      lines.push(`  ${problem.source}: ${problem.detail}`);
    if (picture.problems.length > 10)
      lines.push(`  … and ${picture.problems.length - 10} more (--json lists all)`);
  }
  return `${lines.join("\n")}\n`;
}
