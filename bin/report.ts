import { type Command, InvalidArgumentError } from "commander";
import { datasetPaths, loadDataset, shownPath } from "../env/index.ts";
import { conversationsOf, LISTED_BY_DEFAULT, writeReport } from "../exporters/index.ts";
import { EXIT, type Io } from "./io.ts";
import { checkOutFlag } from "./out-flag.ts";

/** The flags of `rehearse report`. */
interface ReportFlags {
  out: string;
  conversations?: number;
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
    .option(
      "--conversations <n>",
      `the most conversations the page lists, or all (default ${LISTED_BY_DEFAULT}; every row is counted in the figures)`,
      conversationsFlag,
    )
    .option("--json", "print what was written as JSON")
    .addHelpText("after", "\nExample:\n  rehearse report data.jsonl --out report.html\n")
    .action(async (source: string, flags: ReportFlags) => {
      // A report is made anew each time: an existing page is replaced.
      await checkOutFlag(flags.out, {
        what: "report flags",
        overwrite: true,
        reads: [source, datasetPaths(source).meta],
      });
      const written = await writeReport(
        await loadDataset(source),
        flags.out,
        flags.conversations === undefined ? {} : { conversations: flags.conversations },
      );
      const pairs = written.pairs
        ? `${written.pairs.touched} of ${written.pairs.planned} planned pairs touched`
        : "no sidecar, so no coverage";
      const listed = written.listed < written.rows ? ` (${written.listed} listed)` : "";
      io.out(
        flags.json
          ? `${JSON.stringify(written, null, 2)}\n`
          : `wrote     ${shownPath(written.path)}: ${written.rows} conversations${listed}, ${pairs}, ${Math.round(written.bytes / 1024)} KB\n`,
      );
      done(EXIT.ok);
    });
}

/** Commander parser for `--conversations`: a whole number, or all. */
function conversationsFlag(value: string): number {
  const count = conversationsOf(value);
  if (count === null)
    throw new InvalidArgumentError("expected a whole number of conversations to list, or all");
  return count;
}
