#!/usr/bin/env -S node --import=tsx
/**
 * The `rehearse` CLI: thin over the SDK, it parses flags with the SDK's own option schemas and
 * calls the engine. Run as a script, or in process through {@link main}. `npm run build` bundles
 * it to dist/rehearse.js, the package's `bin`.
 *
 * @example
 * // npx rehearse simulate --spec examples/retail-orders.json --rows 64 --out data.jsonl
 * import { main } from "./bin/rehearse.ts";
 * const code = await main(["plan", "--spec", "examples/retail-orders.json", "--json"]);
 *
 * @module
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command, CommanderError } from "commander";
import pkg from "../package.json" with { type: "json" };
import { EXIT, type Io, processIo } from "./io.ts";

/** Adds one command, options and action, to the program; the action reports its exit code to `done`. */
export type Register = (program: Command, io: Io, done: (code: number) => void) => void;

/**
 * A command as the top-level help lists it, and how to load the module that runs it. Only the
 * command being run is loaded, so `--version` and `--help` start without the engine; a test
 * checks `usage` and `description` against each loaded command.
 */
export interface LazyCommand {
  name: string;
  usage: string;
  description: string;
  load: () => Promise<Register>;
}

/** Every command, in the order the help lists them. A new command is one more entry. */
export const COMMANDS: readonly LazyCommand[] = [
  {
    name: "simulate",
    usage: "[options] [sentence]",
    description:
      "simulate conversations for an agent spec and write them as JSONL (offline by default: no key, no network)",
    load: async () => (await import("./simulate.ts")).simulateCommand,
  },
  {
    name: "grade",
    usage: "[options] <data>",
    description:
      "grade a dataset with your grader function or a judge backend, and print the grade report",
    load: async () => (await import("./grade.ts")).gradeCommand,
  },
  {
    name: "replay",
    usage: "[options] <data>",
    description:
      "replay one row of a dataset alone from its situation and seed and say whether it reproduces byte for byte; with --agent, play the same situation with that agent and show the two side by side",
    load: async () => (await import("./replay.ts")).replayCommand,
  },
  {
    name: "plan",
    usage: "[options]",
    description:
      "plan the situations of a run: the pairwise grid, the cold-start flip and the coverage of N rows",
    load: async () => (await import("./plan.ts")).planCommand,
  },
  {
    name: "schemas",
    usage: "[options]",
    description:
      "write the JSON Schemas of every contract, generated from the zod schemas in spec/",
    load: async () => (await import("./schemas.ts")).schemasCommand,
  },
  {
    name: "serve",
    usage: "[options]",
    description:
      "serve the agent's episodes live over WebSocket (OpenEnv's envelope) for on-policy RL trainers",
    load: async () => (await import("./serve.ts")).serveCommand,
  },
  {
    name: "push",
    usage: "[options] <data>",
    description:
      "push a dataset as one split of a dataset repository: a local git repository, or hf://datasets/<owner>/<name> (token from HF_TOKEN)",
    load: async () => (await import("./push.ts")).pushCommand,
  },
  {
    name: "pull",
    usage: "[options] <repo>",
    description:
      "load one push of a split from a dataset repository and measure it (coverage, pass rate, agreement); --out writes it",
    load: async () => (await import("./pull.ts")).pullCommand,
  },
  {
    name: "export",
    usage: "[options] <kind>",
    description:
      "write a graded dataset as SFT rows (loss mask), preference pairs or RL groups, in JSONL or Parquet, with a sidecar <out>.export.json; or as a verifiers environment package (env)",
    load: async () => (await import("./export.ts")).exportCommand,
  },
  {
    name: "decontaminate",
    usage: "[options]",
    description:
      "remove rows that leak an eval set (same task id, same text, an 8-word n-gram near copy, and with --embedder cosine ≥ 0.85); each removal is listed in <out>.export.json",
    load: async () => (await import("./decontaminate.ts")).decontaminateCommand,
  },
  {
    name: "traces",
    usage: "[options] <files...>",
    description:
      "read production traces (OTLP/JSON, GenAI semantic conventions) or graded rows, and show which situations fail, which are new since the last model version, and which stopped failing",
    load: async () => (await import("./traces.ts")).tracesCommand,
  },
  {
    name: "gap",
    usage: "[options] [asks...]",
    description:
      "given example user asks, report which asks no tool serves, which tools no ask reaches, which asks the rules say nothing about, and which rules no situation would test",
    load: async () => (await import("./gap.ts")).gapCommand,
  },
  {
    name: "merge",
    usage: "[options] <shards...>",
    description:
      "join the files of a sharded run (simulate --shard i/n) into the dataset one machine would have written, byte for byte",
    load: async () => (await import("./merge.ts")).mergeCommand,
  },
  {
    name: "report",
    usage: "[options] <data>",
    description:
      "write one self-contained HTML page about a dataset: pairwise coverage heatmap, pass rate by axis value, failure classes, data quality, degraded and warnings, and a filterable list of the conversations",
    load: async () => (await import("./report.ts")).reportCommand,
  },
];

/** The command `argv` runs (`rehearse help <command>` included), or undefined for the program's own flags. */
function commandOf(argv: readonly string[]): string | undefined {
  const words = argv.filter((arg) => !arg.startsWith("-"));
  return words[0] === "help" ? words[1] : words[0];
}

/**
 * Runs the CLI on `argv` (the arguments after `rehearse`), writing through `io`, and returns the
 * exit code: help, version and refused flags included, nothing calls process.exit.
 */
export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  let code: number = EXIT.ok;
  const done = (result: number) => {
    code = result;
  };
  // A program per run: commander keeps parsed values on its commands.
  const program = new Command()
    .name("rehearse")
    .description(
      "Simulate the situations a tool-using agent meets and turn them into post-training data.",
    )
    .version(pkg.version)
    .exitOverride()
    .configureOutput({
      writeOut: io.out,
      writeErr: io.err,
      outputError: (text, write) => write(text),
    })
    // A command not loaded has no options or arguments of its own: its usage comes from the table.
    .configureHelp({ subcommandTerm: (command) => `${command.name()} ${command.usage()}` });
  const wanted = commandOf(argv);

  try {
    for (const command of COMMANDS) {
      if (command.name === wanted) (await command.load())(program, io, done);
      else program.command(command.name).usage(command.usage).description(command.description);
    }
    await program.parseAsync([...argv], { from: "user" });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.invalidInput;
    // A command threw, so the engine is loaded and importing it costs nothing; if the engine
    // itself failed to load, the error is said as it is.
    const env = await import("../env/index.ts").catch(() => undefined);
    if (env && error instanceof env.InputError) {
      io.err(`rehearse: ${error.message}\n`);
      return EXIT.invalidInput;
    }
    // A failure while running is one line for the person; the stack is for whoever debugs rehearse.
    const debug = process.env.REHEARSE_DEBUG && error instanceof Error ? `\n${error.stack}` : "";
    io.err(`rehearse: ${env ? env.messageOf(error) : String(error)}${debug}\n`);
    return EXIT.failed;
  }
}

/** Whether this module is the script node was started with (not imported by a test). */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  return script !== undefined && realpathSync(script) === fileURLToPath(import.meta.url);
}

if (isEntryPoint()) process.exitCode = await main(process.argv.slice(2));
