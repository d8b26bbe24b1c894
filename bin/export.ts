import type { Command } from "commander";
import { datasetPaths, InputError, loadDataset, shownPath } from "../env/index.ts";
import { exportDataset, exportPreference, exportSft, sidecarPath } from "../exporters/index.ts";
import { ExportCommandOptionsSchema, type ExportSidecar } from "../spec/index.ts";
import { exportEnvCommand } from "./export-env.ts";
import { EXIT, type Io } from "./io.ts";
import { number, optionsFrom } from "./options.ts";
import { checkOutFlag } from "./out-flag.ts";

/** The exports `rehearse export` writes. */
const KINDS = ["sft", "preference", "rl", "env"] as const;

/** The flags as commander parsed them: the plain options unchecked, the output switch. */
interface ExportFlags extends Record<string, unknown> {
  json?: boolean;
}

/** `rehearse export sft|preference|rl`: writes a graded dataset as a training file with its sidecar. */
export function exportCommand(program: Command, io: Io, done: (code: number) => void): void {
  program
    .command("export")
    .description(
      "write a graded dataset as SFT rows (loss mask), preference pairs or RL groups, in JSONL or Parquet, with a sidecar <out>.export.json; or as a verifiers environment package (env)",
    )
    .argument("<kind>", `what to export: ${KINDS.join(", ")}`)
    .requiredOption("--in <file>", "JSONL dataset (graded: rehearse grade)")
    .requiredOption(
      "--out <file>",
      "file to write (.parquet is written as Parquet unless --format says)",
    )
    .option("--format <format>", "jsonl or parquet (default: from --out's extension, else jsonl)")
    .option(
      "--mask-mode <mode>",
      "sft: all (every agent turn learned, the default) or final (the last one only)",
    )
    .option(
      "--no-passing",
      "sft: every row, graded or not, passing or not (default: passing rows only)",
    )
    .option("--k <n>", "rl: rollouts per group (at least 2)", number)
    .option("--keep-zero-variance", "rl: keep groups whose rollouts all scored the same")
    .option("--name <id>", "env: the environment id (default: from the spec's name)")
    .option(
      "--band <low,high>",
      "env: keep situations whose graded pass rate lies within (default 0.2,0.8)",
    )
    .option("--no-band", "env: keep every situation")
    .option("--grader <module>", "env: the grader the server rewards episodes with")
    .option("--overwrite", "replace --out if it exists")
    .option("--json", "print the sidecar as JSON")
    .addHelpText(
      "after",
      "\nExample:\n  rehearse export sft --in graded.jsonl --out sft.parquet\n  rehearse export rl --in graded.jsonl --out groups.jsonl --k 4\n",
    )
    .action(async (kind: string, flags: ExportFlags) => done(await run(kind, flags, io)));
}

async function run(kind: string, flags: ExportFlags, io: Io): Promise<number> {
  if (!(KINDS as readonly string[]).includes(kind))
    throw new InputError("export", [
      {
        path: "<kind>",
        message: `expected one of ${KINDS.join(", ")}, got ${JSON.stringify(kind)}`,
      },
    ]);
  // commander sets passing: true by default for --no-passing; only a given --no-passing is an option.
  const given = { ...flags, passing: flags.passing === false ? false : undefined };
  const options = optionsFrom(ExportCommandOptionsSchema, given, "export");
  const misplaced = (
    [
      ["maskMode", "sft"],
      ["passing", "sft"],
      ["k", "rl"],
      ["keepZeroVariance", "rl"],
    ] as const
  ).filter(([option, owner]) => options[option] !== undefined && owner !== kind);
  if (misplaced.length > 0)
    throw new InputError(
      "export flags",
      misplaced.map(([option, owner]) => ({
        path: `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
        message: `applies to export ${owner}, not ${kind}`,
      })),
    );
  const envOnly = ["name", "band", "grader"].filter((flag) => flags[flag] !== undefined);
  if (kind !== "env" && envOnly.length > 0)
    throw new InputError(
      "export flags",
      envOnly.map((flag) => ({ path: `--${flag}`, message: `applies to export env, not ${kind}` })),
    );
  if (kind === "env" && options.format)
    throw new InputError("export flags", [
      { path: "--format", message: "applies to export sft, preference and rl, not env" },
    ]);
  if (kind === "env") return exportEnvCommand(flags, io);
  if (kind === "rl" && options.k === undefined)
    throw new InputError("export flags", [
      { path: "--k", message: "expected the group size for export rl, such as --k 4" },
    ]);
  await checkOutFlag(options.out, {
    what: "export flags",
    overwrite: options.overwrite === true,
    reads: [options.in, datasetPaths(options.in).meta],
    writes: [options.out, sidecarPath(options.out)],
  });
  const data = await loadDataset(options.in);
  const format = options.format;
  const sidecar: ExportSidecar =
    kind === "sft"
      ? await exportSft(data, options.out, {
          ...(options.maskMode ? { maskMode: options.maskMode } : {}),
          ...(options.passing !== undefined ? { passing: options.passing } : {}),
          ...(format ? { format } : {}),
        })
      : kind === "preference"
        ? await exportPreference(data, options.out, format ? { format } : {})
        : await exportDataset(data, options.out, {
            k: options.k as number,
            ...(options.keepZeroVariance ? { keepZeroVariance: true } : {}),
            ...(format ? { format } : {}),
          });
  io.out(
    flags.json
      ? `${JSON.stringify(withoutExtras(sidecar), null, 2)}\n`
      : summary(options.out, sidecar),
  );
  return EXIT.ok;
}

/** The sidecar as written, without the in-memory results some exports return beside it. */
function withoutExtras(sidecar: ExportSidecar): ExportSidecar {
  const {
    pairs: _pairs,
    groups: _groups,
    ...rest
  } = sidecar as ExportSidecar & {
    pairs?: unknown;
    groups?: unknown;
  };
  return rest;
}

/** What an export did, as a person reads it. */
export function summary(out: string, s: ExportSidecar): string {
  const removed = s.filters.filter((f) => f.removed > 0).map((f) => `${f.name} ${f.removed}`);
  const calibration =
    s.calibration.status === "measured"
      ? `measured on ${s.calibration.n} labels (${s.calibration.judge})`
      : `unmeasured: ${s.calibration.reason}`;
  return [
    `wrote     ${s.rows} ${s.kind} rows to ${shownPath(out)} (${s.format}) from ${s.source.rows} rows`,
    `removed   ${removed.join(" · ") || "none"}`,
    `calibration ${calibration}`,
    ...s.warnings.map((w) => `warning   ${w}`),
    `sidecar   ${shownPath(sidecarPath(out))}`,
    "",
  ].join("\n");
}
