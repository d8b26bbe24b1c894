import { InvalidArgumentError } from "commander";

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
