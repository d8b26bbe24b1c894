#!/usr/bin/env -S node --import tsx
import { Command, CommanderError } from "commander";
import { InputError } from "../env/index.ts";
import pkg from "../package.json" with { type: "json" };
import { gradeCommand } from "./grade.ts";
import { planCommand } from "./plan.ts";
import { schemasCommand } from "./schemas.ts";
import { simulateCommand } from "./simulate.ts";

/** Exit codes: 0 done, 1 failed while running, 2 refused the input (bad flags or spec). */
export const EXIT = { ok: 0, failed: 1, invalidInput: 2 } as const;

const program = new Command()
  .name("rehearse")
  .description(
    "Simulate the situations a tool-using agent meets and turn them into post-training data.",
  )
  .version(pkg.version)
  .exitOverride()
  .configureOutput({ outputError: (text, write) => write(text) });
simulateCommand(program);
gradeCommand(program);
planCommand(program);
schemasCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.invalidInput;
  } else if (error instanceof InputError) {
    process.stderr.write(`rehearse: ${error.message}\n`);
    process.exitCode = EXIT.invalidInput;
  } else {
    process.stderr.write(`rehearse: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = EXIT.failed;
  }
}
