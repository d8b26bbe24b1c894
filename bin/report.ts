import type { Command } from "commander";
import { datasetPaths, loadDataset, shownPath } from "../env/index.ts";
import { writeReport } from "../exporters/index.ts";
import { EXIT, type Io } from "./io.ts";
import { checkOutFlag } from "./out-flag.ts";

/** The flags of `rehearse report`. */
interface ReportFlags {
  out: string;
  json?: boolean;
}

/** `rehearse report data.jsonl --out report.html`: one self-contained HTML page about a dataset. */
export function reportCommand(program: Command, io: Io, done: (code: number) => void): void {
  program
    .command("report")
    .description(
      "write one self-contained HTML page about a dataset: pairwise coverage heatmap, pass rate by axis value, failure classes, data quality, degraded and warnings, and a filterable list of the conversations",
    )
    .argument("<data>", "the dataset (JSONL, with its .meta.json sidecar when there is one)")
    .requiredOption("--out <file>", "the HTML file to write")
    .option("--json", "print what was written as JSON")
    .addHelpText("after", "\nExample:\n  rehearse report data.jsonl --out report.html\n")
    .action(async (source: string, flags: ReportFlags) => {
      // A report is made anew each time: an existing page is replaced.
      await checkOutFlag(flags.out, {
        what: "report flags",
        overwrite: true,
        reads: [source, datasetPaths(source).meta],
      });
      const written = await writeReport(await loadDataset(source), flags.out);
      const pairs = written.pairs
        ? `${written.pairs.touched} of ${written.pairs.planned} planned pairs touched`
        : "no sidecar, so no coverage";
      io.out(
        flags.json
          ? `${JSON.stringify(written, null, 2)}\n`
          : `wrote     ${shownPath(written.path)}: ${written.rows} conversations, ${pairs}, ${Math.round(written.bytes / 1024)} KB\n`,
      );
      done(EXIT.ok);
    });
}
