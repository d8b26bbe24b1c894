import type { Command } from "commander";
import { mergeShards, shownPath } from "../env/index.ts";
import { EXIT, type Io } from "./io.ts";

/** The flags of `rehearse merge`. */
interface MergeFlags {
  out: string;
  overwrite?: boolean;
  json?: boolean;
}

/** `rehearse merge <shard files…> --out data.jsonl`: joins a sharded run's files into one dataset. */
export function mergeCommand(program: Command, io: Io, done: (code: number) => void): void {
  program
    .command("merge")
    .description(
      "join the files of a sharded run (simulate --shard i/n) into the dataset one machine would have written, byte for byte",
    )
    .argument("<shards...>", "the shard files (any order; each with its .meta.json sidecar)")
    .requiredOption("--out <file>", "JSONL file to write (with its sidecar <file>.meta.json)")
    .option("--overwrite", "replace <file> once the merged file is complete")
    .option("--json", "print the merged dataset's summary as JSON")
    .addHelpText(
      "after",
      "\nExample:\n  rehearse merge part-0.jsonl part-1.jsonl --out data.jsonl\n",
    )
    .action(async (shards: string[], flags: MergeFlags) => {
      const data = await mergeShards(shards, {
        out: flags.out,
        overwrite: flags.overwrite === true,
        style: "flags",
      });
      const pairwise = data.coverage?.pairwise;
      io.out(
        flags.json
          ? `${JSON.stringify({ path: data.path, shards: shards.length, rows: data.size, coverage: data.coverage, ...data.summary, quality: data.quality, degraded: data.degraded, warnings: data.warnings }, null, 2)}\n`
          : [
              `merged    ${shards.length} shards, ${data.size} rows into ${shownPath(flags.out)}`,
              ...(pairwise
                ? [
                    `coverage  ${pairwise.pairs_covered} / ${pairwise.pairs_planned} pairs = ${pairwise.fraction.toFixed(3)}`,
                  ]
                : []),
              ...data.warnings.map((w) => `warning   ${w}`),
              "",
            ].join("\n"),
      );
      done(EXIT.ok);
    });
}
