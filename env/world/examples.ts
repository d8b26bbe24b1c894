import type { Rng } from "../rng.ts";

/** An example in a description: "such as W2378156", "e.g. '#W0000000'", "e.g. ACC 4410 2231". */
export const EXAMPLE =
  /(?:such as|e\.g\.,?|for example,?|for instance,?|like|example:|format:?)\s*[`"']?(#?[A-Za-z0-9][A-Za-z0-9_-]{1,30}[A-Za-z0-9](?: [A-Z0-9]{0,8}\d[A-Z0-9]{0,8}){0,3})/i;

/** Makes values of an example's shape: its other characters kept, each digit drawn afresh in turn. */
export function digitsDrawn(example: string): (rng: Rng) => string {
  const between = example.split(/\d/);
  return (rng) => {
    let out = between[0] as string;
    for (let i = 1; i < between.length; i++) out += String(rng.int(10)) + between[i];
    return out;
  };
}

/** An example that is a date, a time or a figure, not a code: "2025-03-14", "09:30", "45.00". */
const NOT_A_CODE = /^\d{4}-\d{2}(-\d{2})?$|^\d+([.:]\d+)*$/;

/**
 * Codes of the shape a description's example shows (a meter serial "e.g. 'E11Z093341'"), or
 * null where it gives none with a digit in it.
 */
export function exampleCode(description: string | undefined): ((rng: Rng) => string) | null {
  const example = EXAMPLE.exec(description ?? "")?.[1];
  if (!example || !/\d/.test(example) || NOT_A_CODE.test(example)) return null;
  // A word among its parts makes it a name with a figure ("lisinopril 10"), not a code.
  if (example.split(" ").some((part) => !/\d/.test(part) && !/^[A-Z#_-]+$/.test(part))) return null;
  return digitsDrawn(example);
}
