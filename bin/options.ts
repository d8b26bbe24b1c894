import { type Command, InvalidArgumentError } from "commander";
import type { z } from "zod";
import { InputError, issuesOf } from "../env/index.ts";
import { DEFAULTS } from "../spec/index.ts";

/**
 * Commander parser for a numeric flag: the text as a number when it reads as one, else the text as
 * typed, so the option's schema refuses it with the same message the SDK gives.
 */
export function number(value: string): number | string {
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(value.trim()) ? Number(value) : value;
}

/** Commander parser for a seed: a whole number stays a number, anything else is a string seed. */
export function seed(value: string): number | string {
  return /^\d+$/.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : value;
}

/** Commander parser for a backend: a spec string, or a JSON object when it starts with "{". */
export function backend(value: string): string | Record<string, unknown> {
  if (!value.trim().startsWith("{")) return value;
  try {
    return JSON.parse(value) as Record<string, unknown>;
  } catch (error) {
    throw new InvalidArgumentError(
      `expected a backend spec or a JSON object: ${(error as Error).message}`,
    );
  }
}

/** The flag of an option: `faultRate` → `--fault-rate` (flags are the kebab-case of the options). */
export function flagOf(option: string): string {
  return `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * The options a command's flags set, checked by the SDK's own schema: a refused flag gets the
 * message the refused option would, named as it was typed (`--fault-rate`).
 */
export function optionsFrom<S extends z.ZodObject>(
  schema: S,
  flags: object,
  command: string,
): z.infer<S> {
  const given = Object.fromEntries(
    Object.entries(flags).filter(([name, value]) => name in schema.shape && value !== undefined),
  );
  const parsed = schema.safeParse(given);
  if (!parsed.success)
    throw new InputError(
      `${command} flags`,
      issuesOf(parsed.error, given).map((issue) => ({ ...issue, path: flagOf(issue.path) })),
    );
  return parsed.data;
}

/** The flags that shape a plan, shared by `plan` and `simulate`: --fault-rate and the cold-start switch. */
export function flipOptions(command: Command): Command {
  return command
    .option(
      "--fault-rate <share>",
      `share of fault cells that keep their fault (default ${DEFAULTS.faultRate}, or the spec's world.fault_rate)`,
      number,
    )
    .option(
      "--prefer-success",
      "apply the cold-start flip even where the spec's world dials turn it off",
    )
    .option("--no-prefer-success", "keep every fault cell (no cold-start flip)");
}
