import { z } from "zod";

/** Keys any object of a spec may carry for its author's own use, as OpenAPI allows: `x-owner`. */
const EXTENSION = /^x-/;

/** An object's own keys but extensions (`x-…`), copied so that a key such as `__proto__` stays a key. */
function withoutExtensions(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value))
    if (!EXTENSION.test(key))
      Object.defineProperty(out, key, {
        value: child,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  return out;
}

/** Edits (insertions, deletions, substitutions) between two short strings. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = row;
  }
  return previous[b.length] as number;
}

/** A key as compared for nearness: case, `_` and `-` aside, so `faultRate` is `fault_rate`. */
function folded(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, "");
}

/**
 * The known key nearest an unknown one (`faultRate` → `fault_rate`, `condition` → `conditions`,
 * `polcy` → `policy`), or null when none is near enough to be what was meant.
 */
export function nearestKey(key: string, known: readonly string[]): string | null {
  // Keys longer than any known one by far are nobody's typo; the cap also bounds the work.
  const typed = folded(key.slice(0, 64));
  let best: { key: string; distance: number } | null = null;
  for (const candidate of known) {
    const distance = editDistance(typed, folded(candidate));
    if (best === null || distance < best.distance) best = { key: candidate, distance };
  }
  if (best === null) return null;
  return best.distance <= Math.max(2, Math.floor(best.key.length / 3)) ? best.key : null;
}

/** The message for keys an object does not know: each with the known key it is nearest. */
export function unknownKeysMessage(keys: readonly string[], known: readonly string[]): string {
  const named = keys.map((key) => ({
    shown: `\`${key.length > 64 ? `${key.slice(0, 63)}…` : key}\``,
    near: nearestKey(key, known),
  }));
  const only = named.length === 1 ? named[0] : undefined;
  if (only?.near) return `unknown key ${only.shown}; did you mean \`${only.near}\`?`;
  const list = named
    .map(({ shown, near }) => (near ? `${shown} (did you mean \`${near}\`?)` : shown))
    .join(", ");
  const expected = known.map((k) => `\`${k}\``).join(", ");
  return `unknown key${named.length === 1 ? "" : "s"} ${list}; expected one of ${expected}, or an \`x-\` key of your own`;
}

/**
 * An object of a spec whose keys are all known: an unknown key (a typo such as `faultRate`) is
 * refused with the key nearest it, never dropped in silence. Keys starting with `x-` are the
 * author's own and pass unread.
 */
export function specObject<Shape extends z.ZodRawShape>(shape: Shape) {
  const known = Object.keys(shape);
  const strict = z
    .strictObject(shape, {
      error: (issue) =>
        issue.code === "unrecognized_keys" ? unknownKeysMessage(issue.keys, known) : undefined,
    })
    .meta({ patternProperties: { "^x-": {} } });
  return z.preprocess(withoutExtensions, strict);
}
