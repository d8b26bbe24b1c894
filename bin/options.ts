import { type Command, InvalidArgumentError } from "commander";

/** Commander parser for a flag that takes a whole number of at least `min`. */
export function integer(min: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
      throw new InvalidArgumentError(`expected a whole number ≥ ${min}, got "${value}"`);
    }
    return n;
  };
}

/** Commander parser for a flag that takes a number in [0, 1]. */
export function share(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0 || n > 1) {
    throw new InvalidArgumentError(`expected a number between 0 and 1, got "${value}"`);
  }
  return n;
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

/** The flags that shape a plan, shared by `plan` and `simulate`: --fault-rate and the cold-start switch. */
export function flipOptions(command: Command): Command {
  return command
    .option(
      "--fault-rate <share>",
      "share of fault cells that keep their fault (default 0.1)",
      share,
    )
    .option(
      "--prefer-success",
      "apply the cold-start flip even where the spec's world dials turn it off",
    )
    .option("--no-prefer-success", "keep every fault cell (no cold-start flip)");
}
