import type { Command } from "commander";
import { datasetPaths, shownPath } from "../env/index.ts";
import { describeHubRepo, loadFromHub, passRateText } from "../exporters/index.ts";
import { HUB_SPLITS, PullCommandOptionsSchema } from "../spec/index.ts";
import { EXIT, type Io } from "./io.ts";
import { optionsFrom } from "./options.ts";
import { checkOutFlag } from "./out-flag.ts";

/** `rehearse pull`: one push of a split, measured before training, and written out when asked. */
export function pullCommand(program: Command, io: Io, done: (code: number) => void): void {
  program
    .command("pull")
    .description(
      "load one push of a split from a dataset repository and measure it (coverage, pass rate, agreement); --out writes it",
    )
    .argument("<repo>", "a local repository path, or hf://datasets/<owner>/<name>")
    .requiredOption("--split <split>", `the split: ${HUB_SPLITS.join(", ")}`)
    .option("--revision <rev>", "a commit id, branch or tag (default: main's newest commit)")
    .option("--hub-url <url>", "the Hub's address (a mirror)")
    .option("--out <file>", "write the rows and their sidecar here")
    .option("--overwrite", "replace --out if it exists")
    .option("--json", "print the figures as JSON")
    .addHelpText(
      "after",
      "\nExample:\n  rehearse pull hf://datasets/acme/support-agent --split train --revision 3f2a9c1 --out train.jsonl\n",
    )
    .action(async (repo: string, flags: Record<string, unknown>) => {
      const { split, out, overwrite, ...load } = optionsFrom(
        PullCommandOptionsSchema,
        flags,
        "pull",
      );
      if (out)
        await checkOutFlag(out, {
          what: "pull flags",
          overwrite: overwrite === true,
          reads: [],
          writes: [out, datasetPaths(out).meta],
        });
      const { revision } = await describeHubRepo(repo, load);
      const data = await loadFromHub(repo, split, { ...load, revision });
      if (out) await data.save(out);
      const report = await data.report();
      const figures = {
        repo,
        split,
        revision,
        rows: report.rows,
        graded: report.graded,
        pass_rate: report.pass_rate,
        coverage: data.coverage?.pairwise ?? null,
        agreement: report.agreement,
        calibration: report.calibration,
        ...(out ? { out } : {}),
      };
      const agreement = report.agreement;
      io.out(
        flags.json
          ? `${JSON.stringify(figures, null, 2)}\n`
          : [
              `split     ${split} of ${repo} at ${revision.slice(0, 12)}`,
              `rows      ${report.rows} (${report.graded} graded), pass rate ${passRateText(report.pass_rate)}`,
              `coverage  ${figures.coverage ? `${(figures.coverage.fraction * 100).toFixed(1)}% of planned pairs` : "not recorded (no sidecar)"}`,
              `agreement ${agreement && agreement.agreement !== null ? `${(agreement.agreement * 100).toFixed(1)}% with ${agreement.n} labels, kappa ${agreement.kappa?.toFixed(2) ?? "undefined"}` : "no labels to measure against"}`,
              ...(out ? [`wrote     ${shownPath(out)}`] : []),
              "",
            ].join("\n"),
      );
      done(EXIT.ok);
    });
}
