import type { Command } from "commander";
import {
  checkOutputPath,
  datasetPaths,
  graderFrom,
  InputError,
  loadDataset,
  readTextFile,
  shownPath,
} from "../env/index.ts";
import { type BackendSpec, GradeCommandOptionsSchema, type GradeReport } from "../spec/index.ts";
import { EXIT, type Io } from "./io.ts";
import { backend, optionsFrom } from "./options.ts";
import { progressBar } from "./progress.ts";

/** The flags as commander parsed them: the plain options unchecked, the judge, the output switch. */
interface GradeFlags extends Record<string, unknown> {
  judge?: BackendSpec;
  json?: boolean;
}

/** `rehearse grade`: grades a dataset with your grader or a judge, and prints the grade report. */
export function gradeCommand(program: Command, io: Io, done: (code: number) => void): void {
  program
    .command("grade")
    .description(
      "grade a dataset with your grader function or a judge backend, and print the grade report",
    )
    .argument("<data>", "JSONL dataset written by rehearse simulate")
    .option(
      "--grader <module>",
      "a JS/TS module whose default export (or `grade`) is (row) => {reward, reason, failure_class?}",
    )
    .option(
      "--judge <backend>",
      'a judge: a chat model ("openai:<model>", "<model>@<base-url>") or a decision model ("typesafe:offline", "typesafe:<model>@<base-url>", "typesafe:openai:<model>")',
      backend,
    )
    .option("--rubric <text>", "the rubric, or @file to read it from a file")
    .option("--judge-name <name>", "name stamped on every label (judge_meta.judge)")
    .option("--judge-version <version>", "version stamped on every label (judge_meta.version)")
    .option(
      "--labels <file>",
      "JSONL of hand labels {id, reward, failure_class?, by?, note?} to measure the judge against",
    )
    .option("--out <file>", "where to write the graded rows (default: <data>.graded.jsonl)")
    .option("--json", "print the report as JSON")
    .addHelpText(
      "after",
      "\nExample:\n  rehearse grade data.jsonl --judge typesafe:offline --out graded.jsonl\n",
    )
    .action(async (path: string, flags: GradeFlags) => done(await grade(path, flags, io)));
}

async function grade(path: string, flags: GradeFlags, io: Io): Promise<number> {
  const options = optionsFrom(GradeCommandOptionsSchema, flags, "grade");
  if ((options.grader === undefined) === (flags.judge === undefined)) {
    throw new InputError("grade flags", [
      { path: "", message: "expected exactly one of --grader <module> or --judge <backend>" },
    ]);
  }
  const out = options.out ?? path.replace(/(\.jsonl)?$/, ".graded.jsonl");
  // Every input is read and checked before the first judge call, so a typo costs nothing; the
  // output too, which must be none of them (a graded file written over the data it grades).
  const rubricFile = options.rubric?.startsWith("@") ? options.rubric.slice(1) : undefined;
  const data = datasetPaths(path.replace(/\.partial$/, ""));
  await checkOutputPath(out, {
    what: "grade flags",
    field: "--out",
    writes: [out, datasetPaths(out).meta],
    reads: [
      path,
      path.endsWith(".partial") ? data.partialMeta : data.meta,
      ...[options.labels, options.grader, rubricFile].filter((read) => read !== undefined),
    ],
  });
  const rubric =
    rubricFile !== undefined ? await readTextFile(rubricFile, "--rubric") : options.rubric;
  const grader = options.grader ? await graderFrom(options.grader) : undefined;
  const labels = options.labels ? await readJsonLines(options.labels) : undefined;
  const dataset = await loadDataset(path);
  if (labels) await dataset.attachLabels(labels, { kind: "human" });
  const bar = progressBar(io, "grade", "rows");
  const final = await dataset
    .grade({
      ...(grader ? { grader } : { spec: flags.judge as BackendSpec }),
      ...(rubric ? { rubric } : {}),
      ...(options.judgeName ? { judge: options.judgeName } : {}),
      ...(options.judgeVersion ? { version: options.judgeVersion } : {}),
      onProgress: (done, total) => bar.update(done, total),
    })
    .finally(() => bar.stop());
  await dataset.save(out);
  io.out(
    flags.json
      ? `${JSON.stringify({ out, ...final }, null, 2)}\n`
      : `${printed(final)}wrote     graded rows to ${shownPath(out)}\n`,
  );
  // Nothing graded at all is a failed run (a judge that is down, a grader that always throws).
  return final.rows > 0 && final.graded === 0 ? EXIT.failed : EXIT.ok;
}

async function readJsonLines(path: string): Promise<unknown[]> {
  const text = await readTextFile(path, "--labels");
  return text
    .split("\n")
    .map((line, n) => ({ line: line.trim(), n }))
    .filter(({ line }) => line !== "")
    .map(({ line, n }) => {
      try {
        return JSON.parse(line) as unknown;
      } catch (error) {
        throw new InputError(`${path}:${n + 1}`, [
          { path: "", message: `expected a JSON label: ${(error as Error).message}` },
        ]);
      }
    });
}

/** The report as a person reads it. */
export function printed(r: GradeReport): string {
  const pct = (x: number | null) => (x === null ? "n/a" : `${(x * 100).toFixed(1)}%`);
  const counts = (c: Record<string, number>) =>
    Object.entries(c)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(" · ") || "none";
  const all = r.pass_hat_k_situations["1"];
  const passK = Object.entries(r.pass_hat_k).map(([k, v]) => {
    const n = r.pass_hat_k_situations[k];
    return `pass^${k} ${pct(v)}${n !== all ? ` (${n} situations)` : ""}`;
  });
  const a = r.agreement;
  const calibration =
    r.calibration.status === "measured"
      ? `measured on ${r.calibration.n} labels (${r.calibration.judge})`
      : `unmeasured: ${r.calibration.reason}`;
  return [
    `graded    ${r.graded} of ${r.rows} rows${r.ungraded > 0 ? ` (${r.ungraded} ungraded: see errors)` : ""} by ${r.judges.join(", ") || "nobody"}`,
    `pass      ${pct(r.pass_rate)}${passK.length > 1 ? ` · ${passK.join(" · ")}` : ""}`,
    `failures  ${counts(r.failure_classes)}`,
    `conduct   ${counts(r.conduct)}`,
    `unsure    ${r.unsure}`,
    `sim_fault ${r.sim_faults} rows (left out of the agent's figures)`,
    ...(a
      ? [
          `agreement ${a.n} labelled rows: agreement ${pct(a.agreement)} · kappa ${a.kappa === null ? `undefined (${a.kappa_note})` : a.kappa.toFixed(3)} · pass_when_gold_fail ${pct(a.pass_when_gold_fail)} · fail_when_gold_pass ${pct(a.fail_when_gold_pass)}${a.unmeasured > 0 ? ` · ${a.unmeasured} unmeasured` : ""}`,
        ]
      : []),
    `calibration ${calibration}`,
    ...r.errors.slice(0, 5).map((e) => `error     ${e.row}: ${e.error}`),
    ...r.warnings.map((w) => `warning   ${w}`),
    "",
  ].join("\n");
}
