import type { Rng } from "../rng.ts";
import { DAY, isoDay, WORLD_TODAY } from "./dates.ts";

/** An example in a description: "such as W2378156", "e.g. '#W0000000'", "e.g. ACC 4410 2231". */
export const EXAMPLE =
  /(?:such as|e\.g\.,?|for example,?|for instance,?|like|example:|format:?)\s*[`"']?(#?[A-Za-z0-9][A-Za-z0-9_-]{1,30}[A-Za-z0-9](?: [A-Z0-9]{0,8}\d[A-Z0-9]{0,8}){0,3})/i;

/**
 * Makes values of an example's shape: its other characters kept, each digit drawn afresh in turn;
 * a run that is a year ("INV-2025-00931") a year of the world's, and one that is a day
 * ("SL-20250314-0930") a day near the world's today.
 */
export function digitsDrawn(example: string): (rng: Rng) => string {
  const parts = example.split(/(\d+)/);
  // Only a run with enough digits after it is read as a date: those keep the ids many
  // ("ORD-20250318" alone may be any number).
  const after = (i: number) =>
    parts
      .slice(i + 1)
      .join("")
      .replace(/\D/g, "").length;
  const dated = parts.map((_, i) => i % 2 === 1 && after(i) >= DIGITS_AFTER_A_DATE);
  return (rng) => {
    let out = "";
    for (let i = 0; i < parts.length; i++)
      out +=
        i % 2 === 0 ? (parts[i] as string) : drawnRun(parts[i] as string, rng, dated[i] === true);
    return out;
  };
}

/** Digits a shape holds after a year or a day before it keeps them as such: room for thousands of ids. */
const DIGITS_AFTER_A_DATE = 4;
/** Days either side of today a day in an id falls on. */
const DAYS_AROUND = 120;

/** Digits in place of a run of the example's: a year stays a year, a day a day. */
function drawnRun(run: string, rng: Rng, dated: boolean): string {
  if (dated && /^(19|20)\d{2}$/.test(run))
    return String(new Date(WORLD_TODAY).getUTCFullYear() - rng.int(2));
  if (dated && /^(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/.test(run))
    return isoDay(WORLD_TODAY + (rng.int(2 * DAYS_AROUND + 1) - DAYS_AROUND) * DAY).replace(
      /-/g,
      "",
    );
  let out = "";
  for (let i = 0; i < run.length; i++) out += String(rng.int(10));
  return out;
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
