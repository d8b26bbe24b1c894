import type { Command } from "commander";
import { loadDataset, shownPath } from "../env/index.ts";
import { passRateText, pushToHub } from "../exporters/index.ts";
import { HUB_SPLITS, PushCommandOptionsSchema } from "../spec/index.ts";
import { EXIT, type Io } from "./io.ts";
import { number, optionsFrom } from "./options.ts";

/** `rehearse push`: a dataset file as one split of a dataset repository (local git, or the Hub). */
export function pushCommand(program: Command, io: Io, done: (code: number) => void): void {
  program
    .command("push")
    .description(
      "push a dataset as one split of a dataset repository: a local git repository, or hf://datasets/<owner>/<name> (token from HF_TOKEN)",
    )
    .argument("<data>", "JSONL dataset written by rehearse simulate or grade")
    .requiredOption("--repo <repo>", "a local repository path, or hf://datasets/<owner>/<name>")
    .requiredOption("--split <split>", `the split it replaces: ${HUB_SPLITS.join(", ")}`)
    .option("--branch <branch>", "the branch pushed to", "main")
    .option("--hub-url <url>", "the Hub's address (a mirror)")
    .option("--rows-per-part <n>", "rows in each Parquet part", number)
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      "\nExample:\n  rehearse push data.graded.jsonl --repo hf://datasets/acme/support-agent --split train\n",
    )
    .action(async (path: string, flags: Record<string, unknown>) => {
      const options = optionsFrom(PushCommandOptionsSchema, flags, "push");
      const pushed = await pushToHub(await loadDataset(path), options);
      io.out(
        flags.json
          ? `${JSON.stringify(pushed, null, 2)}\n`
          : [
              `pushed    ${shownPath(path)} as ${pushed.split} of ${pushed.repo}`,
              `revision  ${pushed.revision}${pushed.replaced ? ` (replaced ${pushed.replaced.slice(0, 12)})` : ""}`,
              `rows      ${pushed.summary.rows}, pass rate ${passRateText(pushed.summary.pass_rate)}, ${pushed.summary.support} situations`,
              "",
            ].join("\n"),
      );
      done(EXIT.ok);
    });
}
