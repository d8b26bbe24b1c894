#!/usr/bin/env -S node --import=tsx
/**
 * The `rehearse` CLI: thin over the SDK, it parses flags with the SDK's own option schemas and
 * calls the engine. Run as a script, or in process through {@link main}.
 *
 * @example
 * // npm run rehearse -- simulate --spec examples/retail-orders.json --rows 64 --out data.jsonl
 * import { main } from "./bin/rehearse.ts";
 * const code = await main(["plan", "--spec", "examples/retail-orders.json", "--json"]);
 *
 * @module
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command, CommanderError } from "commander";
import { InputError, messageOf } from "../env/index.ts";
import pkg from "../package.json" with { type: "json" };
import { decontaminateCommand } from "./decontaminate.ts";
import { exportCommand } from "./export.ts";
import { gradeCommand } from "./grade.ts";
import { EXIT, type Io, processIo } from "./io.ts";
import { planCommand } from "./plan.ts";
import { pullCommand } from "./pull.ts";
import { pushCommand } from "./push.ts";
import { schemasCommand } from "./schemas.ts";
import { serveCommand } from "./serve.ts";
import { simulateCommand } from "./simulate.ts";

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
    });
  simulateCommand(program, io, done);
  gradeCommand(program, io, done);
  planCommand(program, io, done);
  schemasCommand(program, io, done);
  serveCommand(program, io, done);
  pushCommand(program, io, done);
  pullCommand(program, io, done);
  exportCommand(program, io, done);
  decontaminateCommand(program, io, done);

  try {
    await program.parseAsync([...argv], { from: "user" });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.invalidInput;
    if (error instanceof InputError) {
      io.err(`rehearse: ${error.message}\n`);
      return EXIT.invalidInput;
    }
    // A failure while running is one line for the person; the stack is for whoever debugs rehearse.
    const debug = process.env.REHEARSE_DEBUG && error instanceof Error ? `\n${error.stack}` : "";
    io.err(`rehearse: ${messageOf(error)}${debug}\n`);
    return EXIT.failed;
  }
}

/** Whether this module is the script node was started with (not imported by a test). */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  return script !== undefined && realpathSync(script) === fileURLToPath(import.meta.url);
}

if (isEntryPoint()) process.exitCode = await main(process.argv.slice(2));
